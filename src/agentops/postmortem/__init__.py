"""Post-mortem drafts (issue #5, spec P-1 … P-8): gather facts, gate (P-3), render the
nine-section document as Markdown and JIRA ADF (P-4), lint it (P-5), publish only an
approved artifact (P-6)."""

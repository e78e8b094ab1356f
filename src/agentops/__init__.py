"""agentops: GitHub Actions-native automation for the chores of a large ML project.

Skills live in sub-packages (``triage``, ``scout``, ``bisect``, ``postmortem``); the
shared pieces are ``errors`` (error classes and exit codes), ``cli`` (the one entry-point
shape), ``ghactions`` (the runner's file commands), ``data`` (the strict data loader) and
``github`` (the only GitHub client).
"""

__version__ = "0.1.0"

"""Nightly regression range (S-10): list nightlies on a simple index, read a wheel's
commit without downloading it, and bisect across nightlies as a GitHub Actions matrix."""

"""The running system: frame sources, the tracker, services, the command line."""

"""Helpers shared by tests: free ports, real brokers, daemon processes."""

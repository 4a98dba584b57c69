"""What operators see of a running service: Prometheus metrics and request-id'd logs.

docs/metrics.md lists the metric names and how /metrics is protected.
"""

"""A node's /metrics exposition parsed back with prometheus_client's own parser, for the tests."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from server.shell.metrics import Metrics


def scrape(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition: (name, sorted labels) -> value."""
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain; version=0.0.4")
    samples: list[Sample] = [s for family in text_string_to_metric_families(body.decode()) for s in family.samples]
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for s in samples}


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return scrape(metrics)[(name, tuple(sorted(labels.items())))]

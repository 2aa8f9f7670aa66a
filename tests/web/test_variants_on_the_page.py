"""The page offers and names every variant the server plays, from the server's own list (the
`hello` message, protocol/web_events.py): a new variant needs only its names in the page's
catalogues, which this test asks for."""
from __future__ import annotations

from fibs_server.rules.variants import Variant
from tests.web.test_refusal_catalogue import LANGUAGES, page_catalogues


def test_every_variant_has_its_name_in_each_language(node):
    catalogues = page_catalogues(node, "messages")
    assert {language: [variant.value for variant in Variant
                       if f"variant.{variant.value}" not in catalogues[language]]
            for language in LANGUAGES} == {language: [] for language in LANGUAGES}

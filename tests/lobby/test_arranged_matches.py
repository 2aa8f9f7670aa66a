"""An arranged match's terms as they travel between nodes (lobby/play/arranged_matches.py): what
one node sends is what the other reads, and terms of the wrong shape are refused."""
from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.protocol.match_rules import MatchTerms, terms_fields, terms_from_fields
from fibs_server.rules.variants import MatchRules, Variant

terms = st.builds(MatchTerms, st.builds(MatchRules, st.sampled_from(list(Variant)),
                                        st.booleans(), st.booleans()),
                  st.none() | st.sampled_from([30, 60]), st.none() | st.integers(10, 600),
                  st.booleans(), st.none() | st.booleans())


@given(terms)
def test_terms_are_what_they_were_after_the_wire(sent):
    assert terms_from_fields(orjson.loads(orjson.dumps(terms_fields(sent)))) == sent


@pytest.mark.parametrize("change", [
    {"variant": "chess"}, {"turn_seconds": "30"}, {"takeover_seconds": 1.5},
    {"crawford": "yes"}, {"variant": None}])
def test_terms_of_the_wrong_shape_are_refused(change):
    fields = {**terms_fields(MatchTerms()), **change}
    with pytest.raises((KeyError, TypeError, ValueError)):
        terms_from_fields(fields)


def test_terms_missing_a_field_are_refused():
    fields = terms_fields(MatchTerms())
    del fields["rated"]
    with pytest.raises(KeyError):
        terms_from_fields(fields)

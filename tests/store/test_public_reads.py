"""The store's reads behind the web's JSON API (docs/WEB-API.md): a page of the ratings list,
a player's finished rated matches newest first paged by id, and their counts."""
from __future__ import annotations

from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.match_records import RatedMatch


def rated(before_after: dict[str, tuple[float, float]], score: list[int]) -> dict:
    return {"score": score, "ratings": {name: list(pair) for name, pair in before_after.items()}}


async def test_a_page_of_the_ratings_list_best_first_with_the_total(store):
    for name, rating, experience in (("alice", 1600.0, 60), ("bob", 1700.0, 51),
                                     ("carol", 1650.0, 50), ("dave", 1600.0, 99)):
        await store.create_account(Account(name=name, password_hash=b"x", rating=rating,
                                           experience=experience))
    total, page = await store.ratings_page(51, 1, 2)
    assert total == 3  # carol has too little experience
    assert [account.name for account in page] == ["alice", "dave"]  # ties by name
    assert await store.ratings_page(51, 3, 2) == (3, [])


async def test_a_players_rated_matches_newest_first_paged_by_id(store, players):
    unrated = await store.create_match("alice", "bob", 1, {})
    await store.finish_match(unrated, {"score": [1, 0]}, "alice", [])
    ids = []
    for number in range(5):
        winner = "alice" if number % 2 == 0 else "carol"
        inviter, joiner = ("alice", "carol") if number < 3 else ("carol", "alice")
        match_id = await store.create_match(inviter, joiner, 3, {})
        await store.finish_match(match_id, rated(
            {"alice": (1500.0 + number, 1501.0 + number), "carol": (1500.0, 1499.0)},
            [3, number % 3] if winner == inviter else [number % 3, 3]), winner, [])
        ids.append(match_id)
    running = await store.create_match("alice", "bob", 5, rated({"alice": (0.0, 1.0)}, [0, 0]))

    first = await store.rated_matches("alice", None, 2)
    assert [match.match_id for match in first] == [ids[4], ids[3]]
    newest = first[0]
    assert newest == RatedMatch(ids[4], "carol", "alice", 3, "alice", [1, 3],
                                newest.finished_at, 1504.0, 1505.0)
    rest = await store.rated_matches("alice", first[-1].match_id, 10)
    assert [match.match_id for match in rest] == [ids[2], ids[1], ids[0]]
    assert await store.rated_matches("alice", ids[0], 10) == []
    # Not one of alice's rated matches: nothing after it.
    assert await store.rated_matches("alice", unrated, 10) == []
    assert await store.rated_matches("alice", running, 10) == []
    assert await store.rated_matches("bob", None, 10) == []

    assert await store.rated_match_counts("alice") == (5, 3)
    assert await store.rated_match_counts("carol") == (5, 2)
    assert await store.rated_match_counts("bob") == (0, 0)

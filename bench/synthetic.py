"""Realistic synthetic conversation text: people, places, hobbies, work and time references."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from service.domain import MessageIn

NAMES = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"]
PLACES = ["Lisbon", "Boston", "Kyoto", "Nairobi", "Toronto", "Berlin", "Lima", "Oslo", "Austin"]
ORGS = ["Google", "Acme Corp", "the city library", "Mercy Hospital", "Spotify", "a bakery"]
HOBBIES = ["pottery", "rock climbing", "the violin", "chess", "sourdough baking", "trail running",
           "watercolor painting", "birdwatching", "salsa dancing", "woodworking"]  # fmt: skip
TIMES = ["yesterday", "last week", "last month", "two years ago", "in May", "last Friday",
         "this morning", "a few days ago", "last summer", "next Friday"]  # fmt: skip
TEMPLATES = [
    "I started {hobby} {time} and I'm hooked.",
    "{name} and I went to {place} {time}; the food was amazing.",
    "I've been working at {org} since {time}, mostly on scheduling.",
    "My sister moved to {place} {time} for a new job.",
    "We adopted a rescue dog {time}. Her name is {name2}.",
    "I finally finished reading that novel about {place} {time}.",
    "{name} told me {time} that {hobby} helps with stress.",
    "Thanks! That sounds great.",
    "Do you still do {hobby}? I remember you loved it.",
    "I signed up for a {hobby} class at {org} {time}.",
]


def synthetic_messages(count: int, seed: int = 7) -> list[MessageIn]:
    """``count`` messages from two alternating speakers, a few minutes apart."""
    rng = random.Random(seed)
    start = datetime(2023, 1, 1, 9, tzinfo=UTC)
    speakers = rng.sample(NAMES, 2)
    messages = []
    for i in range(count):
        text = rng.choice(TEMPLATES).format(
            name=rng.choice(NAMES), name2=rng.choice(NAMES), place=rng.choice(PLACES),
            org=rng.choice(ORGS), hobby=rng.choice(HOBBIES), time=rng.choice(TIMES),
        )  # fmt: skip
        messages.append(MessageIn(
            content=f"{text} ({i})" if i % 5 == 0 else text, speaker=speakers[i % 2],
            timestamp=start + timedelta(minutes=7 * i), id=f"s{i}",
        ))  # fmt: skip
    return messages

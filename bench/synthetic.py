"""Realistic synthetic conversation text: people, places, hobbies, work and time references."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from service.core.domain import MessageIn

NAMES = ["Alice", "Bruno", "Chen", "Dana", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas"]
PLACES = ["Lisbon", "Boston", "Kyoto", "Nairobi", "Toronto", "Berlin", "Lima", "Oslo", "Austin"]
ORGS = ["Google", "Acme Corp", "the city library", "Mercy Hospital", "Spotify", "a bakery"]
HOBBIES = [
    "pottery",
    "rock climbing",
    "the violin",
    "chess",
    "sourdough baking",
    "trail running",
    "watercolor painting",
    "birdwatching",
    "salsa dancing",
    "woodworking",
]
TIMES = [
    "yesterday",
    "last week",
    "last month",
    "two years ago",
    "in May",
    "last Friday",
    "this morning",
    "a few days ago",
    "last summer",
    "next Friday",
]
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
            name=rng.choice(NAMES),
            name2=rng.choice(NAMES),
            place=rng.choice(PLACES),
            org=rng.choice(ORGS),
            hobby=rng.choice(HOBBIES),
            time=rng.choice(TIMES),
        )
        messages.append(
            MessageIn(
                content=f"{text} ({i})" if i % 5 == 0 else text,
                speaker=speakers[i % 2],
                timestamp=start + timedelta(minutes=7 * i),
                id=f"s{i}",
            )
        )
    return messages


# A wider vocabulary for bench.scale: 100k messages over ~40 templates x 40 names x 40 places x
# 40 hobbies x 20 times, one to three sentences each, so few are near-duplicates of one another.
MORE_NAMES = [
    *NAMES,
    "Kofi",
    "Lena",
    "Mateo",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Sven",
    "Tariq",
    "Uma",
    "Viktor",
    "Wen",
    "Ximena",
    "Yusuf",
    "Zoe",
    "Aiko",
    "Bea",
    "Carlos",
    "Dmitri",
    "Esther",
    "Felix",
    "Gita",
    "Hamid",
    "Ivy",
    "Jamal",
    "Keiko",
    "Luca",
    "Maya",
    "Nils",
]
MORE_PLACES = [
    *PLACES,
    "Marrakesh",
    "Reykjavik",
    "Hanoi",
    "Cape Town",
    "Montreal",
    "Seville",
    "Tbilisi",
    "Melbourne",
    "Valparaiso",
    "Krakow",
    "Edinburgh",
    "Dubrovnik",
    "Osaka",
    "Accra",
    "Bergen",
    "Porto",
    "Cusco",
    "Tallinn",
    "Busan",
    "Denver",
    "Zanzibar",
    "Naples",
    "Quebec City",
    "Ljubljana",
    "Hobart",
    "Bruges",
    "Chiang Mai",
    "Santa Fe",
    "Galway",
    "Istanbul",
    "Hoi An",
]
MORE_ORGS = [
    *ORGS,
    "a climbing gym",
    "the university",
    "a law firm",
    "a vet clinic",
    "Netflix",
    "a startup in fintech",
    "the public school",
    "a bike shop",
    "the newspaper",
    "a coffee roastery",
    "an architecture studio",
    "the museum",
    "a food bank",
    "a game studio",
]
MORE_HOBBIES = [
    *HOBBIES,
    "knitting",
    "surfing",
    "the cello",
    "bouldering",
    "kayaking",
    "origami",
    "improv theatre",
    "beekeeping",
    "calligraphy",
    "astronomy",
    "judo",
    "urban sketching",
    "fly fishing",
    "ceramics",
    "baking croissants",
    "learning Portuguese",
    "learning Japanese",
    "bird photography",
    "yoga",
    "marathon training",
    "gardening",
    "film photography",
    "the ukulele",
    "home brewing",
    "ballroom dancing",
    "sailing",
    "cross-stitch",
    "mountain biking",
    "stand-up comedy",
    "pickleball",
]
MORE_TIMES = [
    *TIMES,
    "last Christmas",
    "in March",
    "over the weekend",
    "two weeks ago",
    "last autumn",
    "on my birthday",
    "three months ago",
    "in January",
    "last Tuesday",
    "earlier this year",
]
FOODS = [
    "ramen",
    "tapas",
    "fresh oysters",
    "a huge paella",
    "street tacos",
    "dim sum",
    "pho",
    "grilled sardines",
    "injera",
    "pierogi",
    "a vegan burger",
    "pastel de nata",
    "khachapuri",
    "sushi",
    "jollof rice",
    "lobster rolls",
    "falafel",
    "goulash",
    "ceviche",
    "bibimbap",
]
RELATIVES = [
    "sister",
    "brother",
    "mum",
    "dad",
    "cousin",
    "grandmother",
    "uncle",
    "aunt",
    "best friend",
    "roommate",
    "partner",
    "neighbour",
    "boss",
    "son",
    "daughter",
]
PETS = ["dog", "cat", "parrot", "rabbit", "tortoise", "hamster", "kitten", "puppy"]
FEELINGS = [
    "exhausted",
    "thrilled",
    "a bit nervous",
    "really proud",
    "homesick",
    "relieved",
    "overwhelmed",
    "so relaxed",
    "bored",
    "inspired",
]
VARIED_TEMPLATES = [  # the fixed "Thanks!" line left out: it would repeat verbatim
    *TEMPLATES[:7],
    *TEMPLATES[8:],
    "My {relative} and I ate {food} in {place} {time}.",
    "{name} recommended a {hobby} teacher in {place}.",
    "I quit my job at {org} {time} to focus on {hobby}.",
    "Our {pet} got sick {time}, so {name} drove us to the vet.",
    "I've been feeling {feeling} since {time} because of work at {org}.",
    "My {relative} is visiting from {place} {time}.",
    "I booked flights to {place} with {name} for the spring.",
    "I lost my keys at {org} {time}; {name} found them.",
    "We named the new {pet} {name2} after my {relative}'s friend.",
    "The best {food} I ever had was in {place}.",
    "{name} is teaching me {hobby} on Sunday mornings.",
    "I ran into {name} at {org} {time}; we talked about {place}.",
    "My {relative} started {hobby} {time} and won't stop talking about it.",
    "I felt {feeling} after my first {hobby} competition {time}.",
    "I'm allergic to {food}, which made the trip to {place} tricky.",
    "{name} got a new job at {org} {time}.",
    "I sold my old bike to {name} {time}.",
    "I want to move to {place} someday, maybe with my {relative}.",
    "Every Thursday I cook {food} for {name}.",
    "I volunteered at {org} {time} with my {relative}.",
    "{name2} from my {hobby} club lives near {place}.",
    "I'm saving up for a {hobby} retreat in {place}.",
    "My {pet} hates {name}'s {pet2}.",
    "I got promoted at {org} {time}! I was {feeling}.",
    "I tried {food} for the first time {time} in {place}.",
    "{name} and {name2} are getting married in {place}.",
    "I broke my wrist doing {hobby} {time}.",
    "I've been reading about {place} before my trip with my {relative}.",
    "We celebrated my {relative}'s birthday with {food} {time}.",
    "I told {name} I'd help with {hobby} lessons at {org}.",
]
QUESTIONS = [
    "When did I start {hobby}?",
    "Where did my {relative} move?",
    "Who went to {place} with me?",
    "Where do I work?",
    "What is my {pet}'s name?",
    "Who told me {hobby} helps with stress?",
    "What did I eat in {place}?",
    "What happened {time}?",
    "Which class did I sign up for?",
    "Who recommended a {hobby} teacher?",
    "Why did I quit my job at {org}?",
    "What do I cook for {name} on Thursdays?",
    "Who is visiting from {place}?",
    "Where did I lose my keys?",
    "What am I allergic to?",
    "How did I feel after {hobby}?",
    "Where is {name} getting married?",
    "What does {name} teach me?",
    "Where do I want to move someday?",
    "Where did I volunteer {time}?",
    "Did I go anywhere with {name} {time}?",
    "What's the best {food} I ever had?",
    "Who got a new job at {org}?",
    "How did I break my wrist?",
    "What trip am I saving up for?",
]


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        name=rng.choice(MORE_NAMES),
        name2=rng.choice(MORE_NAMES),
        place=rng.choice(MORE_PLACES),
        org=rng.choice(MORE_ORGS),
        hobby=rng.choice(MORE_HOBBIES),
        time=rng.choice(MORE_TIMES),
        food=rng.choice(FOODS),
        relative=rng.choice(RELATIVES),
        pet=rng.choice(PETS),
        pet2=rng.choice(PETS),
        feeling=rng.choice(FEELINGS),
    )


def varied_messages(
    rng: random.Random,
    count: int,
    first_id: int,
    end: datetime,
    span_days: int = 730,
    max_sentences: int = 3,
) -> list[MessageIn]:
    """``count`` user messages of one to ``max_sentences`` (≤ 3) sentences, said at random
    times before ``end``."""
    messages = []
    lengths = (1, 2, 3)[:max_sentences]
    for i in range(first_id, first_id + count):
        sentences = rng.choices(lengths, weights=(2, 5, 3)[:max_sentences])[0]
        text = " ".join(_fill(rng, rng.choice(VARIED_TEMPLATES)) for _ in range(sentences))
        said = end - timedelta(minutes=rng.randrange(span_days * 24 * 60))
        messages.append(MessageIn(content=text, timestamp=said, id=f"v{i}"))
    return messages


def natural_questions(rng: random.Random, count: int) -> list[str]:
    """Questions a user would ask about ``varied_messages``, from the same vocabulary."""
    return [_fill(rng, rng.choice(QUESTIONS)) for _ in range(count)]

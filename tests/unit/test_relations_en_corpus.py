"""English relations on casual chat nobody wrote a rule for.

Made-up sentences, about six per relation type, whose grammar varies on purpose: passive,
employer or owner as subject, "X is a <role> at Y", appositions, possessives, "our team at Y",
phrasal verbs, bare noun phrases, relative clauses, fronted adverbials, coordination. None of
their names is in graph-dev.json. The speaker is "Ann"; a mention carries the label a mention
would plausibly get.
"""

from __future__ import annotations

import pytest
from spacy.language import Language

from service.nlp.entities.mentions import TypeVote
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.extractor import RelationExtractor
from tests.unit.test_relations import either_way, find_en, triples

L = EntityLabel
ORG, PERSON, PLACE, PRODUCT, EVENT = L.ORG, L.PERSON, L.PLACE, L.PRODUCT, L.EVENT


def miss(reason: str) -> pytest.MarkDecorator:
    """A case the rules do not read yet, and why; strict, so a fix shows."""
    return pytest.mark.xfail(reason=reason, strict=True)


CASES: list[object] = [
    (
        "finally beat Moonward Saga last night",
        {"Moonward_Saga": PRODUCT},
        ("Ann", "USES", "Moonward Saga"),
    ),  # a game beaten is played
    # Friends by the years they go back
    ("Tobin and I go way back", {"Tobin": PERSON}, ("Ann", "FRIEND_OF", "Tobin")),
    ("Tobin is great, we go way back", {"Tobin": PERSON}, ("Ann", "FRIEND_OF", "Tobin")),
    (
        "Tobin and I have known each other since kindergarten",
        {"Tobin": PERSON},
        ("Ann", "FRIEND_OF", "Tobin"),
    ),
    # A visit by a phrasal verb, a deed said in a cleft ("X is the one who ...")
    (
        "we stopped by the Larchmont Museum on the way home",
        {"Larchmont_Museum": ORG},
        ("Ann", "VISITED", "Larchmont Museum"),
    ),
    (
        "Pia popped into Larchmont Books for a gift",
        {"Pia": PERSON, "Larchmont_Books": ORG},
        ("Pia", "VISITED", "Larchmont Books"),
    ),
    (
        "Felix is the one who started the Harbor Lights Festival",
        {"Felix": PERSON, "Harbor_Lights_Festival": EVENT},
        ("Felix", "CREATED", "Harbor Lights Festival"),
    ),
    # WORKS_AT
    (
        "started at Pelican Freight on monday 🎉",
        {"Pelican_Freight": ORG},
        ("Ann", "WORKS_AT", "Pelican Freight"),
    ),
    (
        "handing in my notice at Pelican Freight friday",  # the verb tagged a noun
        {"Pelican_Freight": ORG},
        ("Ann", "WORKS_AT", "Pelican Freight"),
    ),
    (
        "ngl my job at Tandem Health is kinda chill",
        {"Tandem_Health": ORG},
        ("Ann", "WORKS_AT", "Tandem Health"),
    ),
    (
        "Ottilie's a data analyst at Quarrybrook Games now",
        {"Ottilie": PERSON, "Quarrybrook_Games": ORG},
        ("Ottilie", "WORKS_AT", "Quarrybrook Games"),
    ),
    (
        "i got taken on by Kestrel Bank last spring",
        {"Kestrel_Bank": ORG},
        ("Ann", "WORKS_AT", "Kestrel Bank"),
    ),
    (
        "Bram and I both work at Larkspur Dental lol",
        {"Bram": PERSON, "Larkspur_Dental": ORG},
        ("Bram", "WORKS_AT", "Larkspur Dental"),
    ),
    (
        "our team at Wexley Studios just shipped the update",
        {"Wexley_Studios": ORG},
        ("Ann", "WORKS_AT", "Wexley Studios"),
    ),
    (
        "Imani, who works for Corvid Analytics, lives near me",
        {"Imani": PERSON, "Corvid_Analytics": ORG},
        ("Imani", "WORKS_AT", "Corvid Analytics"),
    ),
    (
        "been a Rust dev at Saltmarsh Labs for 2 yrs",
        {"Rust": PRODUCT, "Saltmarsh_Labs": ORG},
        ("Ann", "WORKS_AT", "Saltmarsh Labs"),
    ),
    # LIVES_IN
    (
        "moved out to Tbilisi in march, loving it",
        {"Tbilisi": PLACE},
        ("Ann", "LIVES_IN", "Tbilisi"),
    ),
    ("my Ghent flat is tiny but cosy", {"Ghent": PLACE}, ("Ann", "LIVES_IN", "Ghent")),
    (
        "Rufus, my cousin, lives over in Hobart",
        {"Rufus": PERSON, "Hobart": PLACE},
        ("Rufus", "LIVES_IN", "Hobart"),
    ),
    (
        "we've been living in Bergen since 2019 🇳🇴",
        {"Bergen": PLACE},
        ("Ann", "LIVES_IN", "Bergen"),
    ),
    ("currently based out of Oaxaca tbh", {"Oaxaca": PLACE}, ("Ann", "LIVES_IN", "Oaxaca")),
    (
        "Jolene finally got her own place in Leipzig",
        {"Jolene": PERSON, "Leipzig": PLACE},
        ("Jolene", "LIVES_IN", "Leipzig"),
    ),
    ("home is Valparaiso these days", {"Valparaiso": PLACE}, ("Ann", "LIVES_IN", "Valparaiso")),
    # LOCATED_IN
    (
        "Tandem Health's office in Utrecht is huge",
        {"Tandem_Health": ORG, "Utrecht": PLACE},
        ("Tandem Health", "LOCATED_IN", "Utrecht"),
    ),
    (
        "the Graz branch of Kestrel Bank is closing",
        {"Graz": PLACE, "Kestrel_Bank": ORG},
        ("Kestrel Bank", "LOCATED_IN", "Graz"),
    ),
    (
        "Larkspur Dental is right by the station in Cusco",
        {"Larkspur_Dental": ORG, "Cusco": PLACE},
        ("Larkspur Dental", "LOCATED_IN", "Cusco"),
    ),
    (
        "Wexley Studios, a tiny studio in Rotterdam, made it",
        {"Wexley_Studios": ORG, "Rotterdam": PLACE},
        ("Wexley Studios", "LOCATED_IN", "Rotterdam"),
    ),
    (
        "Saltmarsh Labs moved its hq to Bristol last yr",
        {"Saltmarsh_Labs": ORG, "Bristol": PLACE},
        ("Saltmarsh Labs", "LOCATED_IN", "Bristol"),
    ),
    (
        "Corvid Analytics has offices in Tallinn and Riga",
        {"Corvid_Analytics": ORG, "Tallinn": PLACE, "Riga": PLACE},
        ("Corvid Analytics", "LOCATED_IN", "Riga"),
    ),
    (
        "Moss & Pepper is a tiny cafe in Galway",
        {"Moss_&_Pepper": ORG, "Galway": PLACE},
        ("Moss & Pepper", "LOCATED_IN", "Galway"),
    ),
    # STUDIES_AT
    (
        "Soren got into Ashgrove College!!",
        {"Soren": PERSON, "Ashgrove_College": ORG},
        ("Soren", "STUDIES_AT", "Ashgrove College"),
    ),
    pytest.param(
        "i'm in my second year at Northvale Uni",
        {"Northvale_Uni": ORG},
        ("Ann", "STUDIES_AT", "Northvale Uni"),
        marks=miss("'year at X' is as often a job as a course"),
    ),
    (
        "Mireille, a PhD student at Ashgrove College, is helping me",
        {"Mireille": PERSON, "Ashgrove_College": ORG},
        ("Mireille", "STUDIES_AT", "Ashgrove College"),
    ),
    (
        "Northvale Uni accepted me 😭😭",
        {"Northvale_Uni": ORG},
        ("Ann", "STUDIES_AT", "Northvale Uni"),
    ),
    (
        "my lectures at Kingsmere Poly start at 9",
        {"Kingsmere_Poly": ORG},
        ("Ann", "STUDIES_AT", "Kingsmere Poly"),
    ),
    (
        "Noor is doing a masters at Kingsmere Poly",
        {"Noor": PERSON, "Kingsmere_Poly": ORG},
        ("Noor", "STUDIES_AT", "Kingsmere Poly"),
    ),
    (
        "signed up for evening classes at Brackenfield College",
        {"Brackenfield_College": ORG},
        ("Ann", "STUDIES_AT", "Brackenfield College"),
    ),
    # FAMILY_OF
    ("Bex, my sister, is visiting this weekend", {"Bex": PERSON}, ("Ann", "FAMILY_OF", "Bex")),
    ("my lil bro Tevita turns 12 today 🎂", {"Tevita": PERSON}, ("Ann", "FAMILY_OF", "Tevita")),
    ("Pilar is my stepmom", {"Pilar": PERSON}, ("Ann", "FAMILY_OF", "Pilar")),
    ("me and my husband Dov went to the beach", {"Dov": PERSON}, ("Ann", "FAMILY_OF", "Dov")),
    ("Cosmo's my twin lol", {"Cosmo": PERSON}, ("Ann", "FAMILY_OF", "Cosmo")),
    ("my grandad Lachlan still drives", {"Lachlan": PERSON}, ("Ann", "FAMILY_OF", "Lachlan")),
    ("Anouk and I are cousins", {"Anouk": PERSON}, ("Ann", "FAMILY_OF", "Anouk")),
    (
        "Maeve, Ingrid's daughter, starts school soon",
        {"Maeve": PERSON, "Ingrid": PERSON},
        ("Ingrid", "FAMILY_OF", "Maeve"),
    ),
    # FRIEND_OF
    ("my bestie Yuki is coming over", {"Yuki": PERSON}, ("Ann", "FRIEND_OF", "Yuki")),
    ("Yuki and I have been mates since uni", {"Yuki": PERSON}, ("Ann", "FRIEND_OF", "Yuki")),
    pytest.param(
        "Hamza, an old friend from school, called me",
        {"Hamza": PERSON},
        ("Ann", "FRIEND_OF", "Hamza"),
    ),
    ("Bo, a cousin of mine, lives in Oslo", {"Bo": PERSON}, ("Ann", "FAMILY_OF", "Bo")),
    (
        "Dev, a colleague of Sam's, joined us",
        {"Dev": PERSON, "Sam": PERSON},
        ("Sam", "FRIEND_OF", "Dev"),
    ),
    ("hung out w my homie Kai last night", {"Kai": PERSON}, ("Ann", "FRIEND_OF", "Kai")),
    (
        "Zeynep is one of my closest friends",
        {"Zeynep": PERSON},
        ("Ann", "FRIEND_OF", "Zeynep"),
    ),
    (
        "i've known Elif forever, she's basically my best friend",
        {"Elif": PERSON},
        ("Ann", "FRIEND_OF", "Elif"),
    ),
    ("Ruairi's my flatmate", {"Ruairi": PERSON}, ("Ann", "FRIEND_OF", "Ruairi")),
    # USES
    (
        "switched to Obsidian for notes, game changer",
        {"Obsidian": PRODUCT},
        ("Ann", "USES", "Obsidian"),
    ),
    ("we run everything on Postgres at work", {"Postgres": PRODUCT}, ("Ann", "USES", "Postgres")),
    ("been using Linear for like 2 years", {"Linear": PRODUCT}, ("Ann", "USES", "Linear")),
    (
        "i edit all my vids with DaVinci Resolve",
        {"DaVinci_Resolve": PRODUCT},
        ("Ann", "USES", "DaVinci Resolve"),
    ),
    (
        "Obsidian is what i use for everything",
        {"Obsidian": PRODUCT},
        ("Ann", "USES", "Obsidian"),
    ),
    pytest.param(
        "i do all my budgeting in Ledgerly",
        {"Ledgerly": PRODUCT},
        ("Ann", "USES", "Ledgerly"),
    ),
    # giving a tool a try
    ("finally gave Quillpad a shot, not bad", {"Quillpad": PRODUCT}, ("Ann", "USES", "Quillpad")),
    ("I gave Stackwise a try at work", {"Stackwise": ORG}, ("Ann", "USES", "Stackwise")),
    # where one saw or found a thing, what one ordered it through, what one asked
    ("saw it on Pixly last night", {"Pixly": PRODUCT}, ("Ann", "USES", "Pixly")),
    ("ordered pad thai from Dashbite again", {"Dashbite": PRODUCT}, ("Ann", "USES", "Dashbite")),
    ("I asked Quillbot to fix my cover letter", {"Quillbot": PRODUCT}, ("Ann", "USES", "Quillbot")),
    (
        "finally beat the last boss in Moonward Saga",
        {"Moonward_Saga": PRODUCT},
        ("Ann", "USES", "Moonward Saga"),
    ),
    # one moves tools too, and does not live in them
    ("we moved our infra to Stackwise", {"Stackwise": PRODUCT}, ("Ann", "USES", "Stackwise")),
    # LIKES
    ("obsessed with Wordle rn 😍", {"Wordle": PRODUCT}, ("Ann", "LIKES", "Wordle")),
    ("i'm really into Tame Impala lately", {"Tame_Impala": ORG}, ("Ann", "LIKES", "Tame Impala")),
    (
        "Ottilie is a massive Arsenal fan",
        {"Ottilie": PERSON, "Arsenal": ORG},
        ("Ottilie", "LIKES", "Arsenal"),
    ),
    (
        "big fan of Hollow Knight ngl",
        {"Hollow_Knight": PRODUCT},
        ("Ann", "LIKES", "Hollow Knight"),
    ),
    (
        "Mochi Mochi is my fave place to eat",
        {"Mochi_Mochi": ORG},
        ("Ann", "LIKES", "Mochi Mochi"),
    ),
    (
        "Kai is crazy about Studio Ghibli",
        {"Kai": PERSON, "Studio_Ghibli": ORG},
        ("Kai", "LIKES", "Studio Ghibli"),
    ),
    # DISLIKES
    ("ugh i can't stand Teams", {"Teams": PRODUCT}, ("Ann", "DISLIKES", "Teams")),
    ("not a fan of Outlook tbh", {"Outlook": PRODUCT}, ("Ann", "DISLIKES", "Outlook")),
    ("i'm so sick of Outlook", {"Outlook": PRODUCT}, ("Ann", "DISLIKES", "Outlook")),
    # a taste for what the -ing verb after it is done with
    (
        "honestly I hate using Quillpad for calls",
        {"Quillpad": PRODUCT},
        ("Ann", "DISLIKES", "Quillpad"),
    ),
    (
        "I can't stand working in Ledgerly all day",
        {"Ledgerly": PRODUCT},
        ("Ann", "DISLIKES", "Ledgerly"),
    ),
    (
        "I love playing Moonward with my flatmates",
        {"Moonward": PRODUCT},
        ("Ann", "LIKES", "Moonward"),
    ),
    (
        "Bram really hates Nickelback",
        {"Bram": PERSON, "Nickelback": ORG},
        ("Bram", "DISLIKES", "Nickelback"),
    ),
    ("honestly Teams is the worst", {"Teams": PRODUCT}, ("Ann", "DISLIKES", "Teams")),
    (
        "Ledgerly is useless, I'm done with it",
        {"Ledgerly": PRODUCT},
        ("Ann", "DISLIKES", "Ledgerly"),
    ),
    (
        "Kestrel Bank is the best bank in town",
        {"Kestrel_Bank": ORG},
        ("Ann", "LIKES", "Kestrel Bank"),
    ),
    pytest.param(
        "fed up with Outlook crashing",
        {"Outlook": PRODUCT},
        ("Ann", "DISLIKES", "Outlook"),
        marks=miss("the parser makes the name a modifier of the gerund"),
    ),
    # VISITED
    (
        "spent a week in Ljubljana last summer",
        {"Ljubljana": PLACE},
        ("Ann", "VISITED", "Ljubljana"),
    ),
    (
        "we did Oaxaca and Cusco on our trip",
        {"Oaxaca": PLACE, "Cusco": PLACE},
        ("Ann", "VISITED", "Cusco"),
    ),
    (
        "Bram took me to Ljubljana for my bday",
        {"Bram": PERSON, "Ljubljana": PLACE},
        ("Ann", "VISITED", "Ljubljana"),
    ),
    ("hit up Glastonbury this year 🎶", {"Glastonbury": EVENT}, ("Ann", "VISITED", "Glastonbury")),
    (
        "was in Hobart for a conference last month",
        {"Hobart": PLACE},
        ("Ann", "VISITED", "Hobart"),
    ),
    (
        "finally made it to Machu Picchu!!",
        {"Machu_Picchu": PLACE},
        ("Ann", "VISITED", "Machu Picchu"),
    ),
    ("our trip to Galway was amazing", {"Galway": PLACE}, ("Ann", "VISITED", "Galway")),
    # MEMBER_OF
    (
        "signed up for the Eastside Chess Club 🙌",
        {"Eastside_Chess_Club": ORG},
        ("Ann", "MEMBER_OF", "Eastside Chess Club"),
    ),
    (
        "i'm in a band called Velvet Moths",
        {"Velvet_Moths": ORG},
        ("Ann", "MEMBER_OF", "Velvet Moths"),
    ),
    (
        "me n Bram sing in the Northside Choir",
        {"Bram": PERSON, "Northside_Choir": ORG},
        ("Bram", "MEMBER_OF", "Northside Choir"),
    ),
    pytest.param(
        "Tevita's on the Crestwood Cricket team now",
        {"Tevita": PERSON, "Crestwood_Cricket": ORG},
        ("Tevita", "MEMBER_OF", "Crestwood Cricket"),
    ),
    (
        "Jolene is a member of Greenpeace",
        {"Jolene": PERSON, "Greenpeace": ORG},
        ("Jolene", "MEMBER_OF", "Greenpeace"),
    ),
    (
        "been volunteering with Paws Rescue since 2020",
        {"Paws_Rescue": ORG},
        ("Ann", "MEMBER_OF", "Paws Rescue"),
    ),
    # CREATED
    pytest.param(
        "Noor made this app called Habitly",
        {"Noor": PERSON, "Habitly": PRODUCT},
        ("Noor", "CREATED", "Habitly"),
        marks=miss("the parser makes 'app' the subject of 'called'"),
    ),
    (
        "Saltmarsh Labs was founded by Ingrid",
        {"Saltmarsh_Labs": ORG, "Ingrid": PERSON},
        ("Ingrid", "CREATED", "Saltmarsh Labs"),
    ),
    (
        "i built Crumbtrail over a weekend lol",
        {"Crumbtrail": PRODUCT},
        ("Ann", "CREATED", "Crumbtrail"),
    ),
    pytest.param(
        "Wexley Studios made Lantern Drift",
        {"Wexley_Studios": ORG, "Lantern_Drift": PRODUCT},
        ("Wexley Studios", "CREATED", "Lantern Drift"),
    ),
    pytest.param(
        "Ingrid, who co-founded Corvid Analytics, says hi",
        {"Ingrid": PERSON, "Corvid_Analytics": ORG},
        ("Ingrid", "CREATED", "Corvid Analytics"),
    ),
    (
        "Habitly is an app i made in college",
        {"Habitly": PRODUCT},
        ("Ann", "CREATED", "Habitly"),
    ),
    # OWNS
    ("finally picked up a Nikon Z6", {"Nikon_Z6": PRODUCT}, ("Ann", "OWNS", "Nikon Z6")),
    ("my Vespa broke down again 😤", {"Vespa": PRODUCT}, ("Ann", "OWNS", "Vespa")),
    (
        "Bram has a Kawasaki Ninja",
        {"Bram": PERSON, "Kawasaki_Ninja": PRODUCT},
        ("Bram", "OWNS", "Kawasaki Ninja"),
    ),
    ("got myself a Pixel 8", {"Pixel_8": PRODUCT}, ("Ann", "OWNS", "Pixel 8")),
    ("we just leased a Polestar 2", {"Polestar_2": PRODUCT}, ("Ann", "OWNS", "Polestar 2")),
    ("the Vespa is mine now", {"Vespa": PRODUCT}, ("Ann", "OWNS", "Vespa")),
]

# Frames read off the tuning half's grammar (issue 29), on sentences of our own.
CASES += [
    (
        "Tomasz Wren, my big brother, finally called",
        {"Tomasz_Wren": PERSON},
        ("Ann", "FAMILY_OF", "Tomasz Wren"),
    ),
    ("my youngest Ilse starts school tomorrow", {"Ilse": PERSON}, ("Ann", "FAMILY_OF", "Ilse")),
    ("my son-in-law Pavel fixed the sink", {"Pavel": PERSON}, ("Ann", "FAMILY_OF", "Pavel")),
    (
        "Ottilie is reading chemistry at Keele",
        {"Ottilie": PERSON, "Keele": ORG},
        ("Ottilie", "STUDIES_AT", "Keele"),
    ),
    (
        "tonight is my pottery class at Halden College 😩",
        {"Halden_College": ORG},
        ("Ann", "STUDIES_AT", "Halden College"),
    ),
    (
        "twenty years in Tromso and I still hate the dark",
        {"Tromso": PLACE},
        ("Ann", "LIVES_IN", "Tromso"),
    ),
    (
        "two whole days in Rotterdam though, my feet are destroyed",
        {"Rotterdam": PLACE},
        ("Ann", "VISITED", "Rotterdam"),
    ),
    (
        "Crumbs Bakery (Leith), best scones in town",
        {"Crumbs_Bakery": ORG, "Leith": PLACE},
        ("Crumbs Bakery", "LOCATED_IN", "Leith"),
    ),
    (
        "yes, Harbour Books, over in Leith, the one with the cat",
        {"Harbour_Books": ORG, "Leith": PLACE},
        ("Harbour Books", "LOCATED_IN", "Leith"),
    ),
    (
        "honestly I couldn't live without Centwise",
        {"Centwise": PRODUCT},
        ("Ann", "USES", "Centwise"),
    ),  # a double denial: cannot do without it
    (
        "Can't do my budget without Centwise anymore",
        {"Centwise": PRODUCT},
        ("Ann", "USES", "Centwise"),
    ),
    (
        "Strida is how I track my runs",
        {"Strida": PERSON},
        ("Ann", "USES", "Strida"),
    ),  # the means of doing it, whatever NER called it
    (
        "our stack is Rust and Postgres",
        {"Rust": PRODUCT, "Postgres": PRODUCT},
        ("Ann", "USES", "Postgres"),
    ),  # the conjunct too
    (
        "Grindhouse Roastery does the best cortado in Penrith",
        {"Grindhouse_Roastery": ORG, "Penrith": PLACE},
        ("Grindhouse Roastery", "LOCATED_IN", "Penrith"),
    ),  # a business at its trade somewhere is there
    (
        "Rivet Labs is a small Denver company",
        {"Rivet_Labs": ORG, "Denver": PLACE},
        ("Rivet Labs", "LOCATED_IN", "Denver"),
    ),  # a place before a kind of organisation, said of the subject
    (
        "I'm not really into Fortnite",
        {"Fortnite": PRODUCT},
        ("Ann", "DISLIKES", "Fortnite"),
    ),
    (
        "I gave up on Lingobee after a week",
        {"Lingobee": PRODUCT},
        ("Ann", "DISLIKES", "Lingobee"),
    ),
    (
        "I finally got my hands on a Switch",
        {"Switch": PRODUCT},
        ("Ann", "OWNS", "Switch"),
    ),
    (
        "my sister works at the Kestrel Market in Athens",
        {"Kestrel_Market": ORG, "Athens": PLACE},
        ("Kestrel Market", "LOCATED_IN", "Athens"),
    ),  # "the" and a place after the name: which branch, so where
    (
        "Blue Owl, which is in Penrith, has the best pastries",
        {"Blue_Owl": ORG, "Penrith": PLACE},
        ("Blue Owl", "LOCATED_IN", "Penrith"),
    ),  # a relative clause's "which" is the name it follows
    (
        "I replied to her on Chatterly",
        {"Chatterly": PRODUCT},
        ("Ann", "USES", "Chatterly"),
    ),  # a chat verb on a named thing
    (
        "my aunt runs Saltmarsh Canoes over in Noank",
        {"Saltmarsh_Canoes": ORG, "Noank": PLACE},
        ("Saltmarsh Canoes", "LOCATED_IN", "Noank"),
    ),  # no comma: the direction word still says where the name is
    (
        "I've been eating lunch at Juniper Table for years",
        {"Juniper_Table": ORG},
        ("Ann", "VISITED", "Juniper Table"),
    ),  # a perfect progressive has happened
    (
        "The Kobo my sister gave me is great",
        {"Kobo": PRODUCT},
        ("Ann", "OWNS", "Kobo"),
    ),  # given in a relative clause: "me" is who got it
    (
        "Buying Kestrel Hardware was the smartest move I made",
        {"Kestrel_Hardware": ORG},
        ("Ann", "OWNS", "Kestrel Hardware"),
    ),  # a past doing said as the subject is the speaker's
    (
        "my uncle bought Larkspur Farm, out in Tolland, last spring",
        {"Larkspur_Farm": ORG, "Tolland": PLACE},
        ("Larkspur Farm", "LOCATED_IN", "Tolland"),
    ),
    (
        "the Tandem Health office in Hobart is huge",
        {"Tandem_Health": ORG, "Hobart": PLACE},
        ("Tandem Health", "LOCATED_IN", "Hobart"),
    ),
    (
        "they moved me to the early shift at Pelican Freight",
        {"Pelican_Freight": ORG},
        ("Ann", "WORKS_AT", "Pelican Freight"),
    ),
    (
        "we at Wexley Studios have three launches this month",
        {"Wexley_Studios": ORG},
        ("Ann", "WORKS_AT", "Wexley Studios"),
    ),
    (
        "Teams crashed again, I hate that app",
        {"Teams": PRODUCT},
        ("Ann", "DISLIKES", "Teams"),
    ),
    (
        "I keep all my recipes in Notewise",
        {"Notewise": PRODUCT},
        ("Ann", "USES", "Notewise"),
    ),
    (
        "still grinding away at Pelican Freight",
        {"Pelican_Freight": ORG},
        ("Ann", "WORKS_AT", "Pelican Freight"),
    ),
    ("I log all my rides with Veloroute", {"Veloroute": ORG}, ("Ann", "USES", "Veloroute")),
    (
        "the Harbour Regatta is Leith's biggest party",
        {"Harbour_Regatta": EVENT, "Leith": PLACE},
        ("Harbour Regatta", "LOCATED_IN", "Leith"),
    ),
    (
        "Leith's oldest pub is the Shore Inn",
        {"Leith": PLACE, "Shore_Inn": ORG},
        ("Shore Inn", "LOCATED_IN", "Leith"),
    ),
    ("I'm Tomasz's younger brother btw", {"Tomasz": PERSON}, ("Tomasz", "FAMILY_OF", "Ann")),
    ("Petra is great. I'm her cousin", {"Petra": PERSON}, ("Petra", "FAMILY_OF", "Ann")),
]

# Probes of the thirtieth session: stays, origins, drop-outs, roles "with" an employer.
CASES += [
    (
        "Wren's been at Kestrel Bank since she graduated",
        {"Wren": PERSON, "Kestrel_Bank": ORG},
        ("Wren", "WORKS_AT", "Kestrel Bank"),
    ),  # a stay since a time is a job, no visit
    (
        "Odile grew up in Tromso but lives in Ghent now",
        {"Odile": PERSON, "Tromso": PLACE, "Ghent": PLACE},
        ("Odile", "LIVES_IN", "Tromso"),
    ),
    ("I was raised in Tolland", {"Tolland": PLACE}, ("Ann", "LIVES_IN", "Tolland")),
    (
        "Bram dropped out of Northvale Uni after a year",
        {"Bram": PERSON, "Northvale_Uni": ORG},
        ("Bram", "STUDIES_AT", "Northvale Uni"),
    ),
    (
        "Pia is a nurse practitioner with Tandem Health",
        {"Pia": PERSON, "Tandem_Health": ORG},
        ("Pia", "WORKS_AT", "Tandem Health"),
    ),
    (
        "Felix is the guy behind Larkspur Coffee",
        {"Felix": PERSON, "Larkspur_Coffee": ORG},
        ("Felix", "CREATED", "Larkspur Coffee"),
    ),
    (
        "my first day at Kestrel Bank was a blur",
        {"Kestrel_Bank": ORG},
        ("Ann", "WORKS_AT", "Kestrel Bank"),
    ),
    (
        "Wexley Studios, based in Hobart, makes board games",
        {"Wexley_Studios": ORG, "Hobart": PLACE},
        ("Wexley Studios", "LOCATED_IN", "Hobart"),
    ),
    (
        "we ate at Crumbs, this tiny place in Leith",
        {"Crumbs": ORG, "Leith": PLACE},
        ("Crumbs", "LOCATED_IN", "Leith"),
    ),
    ("Notewise is a lifesaver", {"Notewise": PRODUCT}, ("Ann", "LIKES", "Notewise")),
    ("Bram drives a beat-up Vespa", {"Bram": PERSON, "Vespa": PRODUCT}, ("Bram", "OWNS", "Vespa")),
    (
        "Bram quit Kestrel Bank for Tandem Health",
        {"Bram": PERSON, "Kestrel_Bank": ORG, "Tandem_Health": ORG},
        ("Bram", "WORKS_AT", "Tandem Health"),
    ),  # left for an employer
    (
        "the Harbour Choir let me in last spring",
        {"Harbour_Choir": ORG},
        ("Ann", "MEMBER_OF", "Harbour Choir"),
    ),
]

NO_RELATION: list[tuple[str, dict[str, EntityLabel]]] = [
    ("Bex, over in Hobart, says hi", {"Bex": PERSON, "Hobart": PLACE}),
    ("I'd kill for a week in Lisbon", {"Lisbon": PLACE}),
    ("three hours in Figma and nothing to show", {"Figma": PRODUCT}),
    ("going to Lisbon next week", {"Lisbon": PLACE}),
    ("Jo says Kestrel Bank is awful", {"Jo": PERSON, "Kestrel_Bank": ORG}),
    ("is Teams the worst?", {"Teams": PRODUCT}),
    ("the food at Crumbs is amazing", {"Crumbs": ORG}),
    ("I'm not her brother", {}),
    ("I gave Ruairi a chance and he let me down", {"Ruairi": PERSON}),  # a person is not used
    ("I hate living near Ruairi", {"Ruairi": PERSON}),  # near whom: no taste read
    ("do you still work at Pelican Freight?", {"Pelican_Freight": ORG}),
    ("i don't live in Tbilisi anymore", {"Tbilisi": PLACE}),
    ("thinking about moving to Bergen next year", {"Bergen": PLACE}),
    ("if i got into Ashgrove College i'd cry", {"Ashgrove_College": ORG}),
    ("she works at Tandem Health", {"Tandem_Health": ORG}),
    ("he's obsessed with Wordle", {"Wordle": PRODUCT}),
    ("would love to visit Ljubljana someday", {"Ljubljana": PLACE}),
    ("we might switch to Obsidian", {"Obsidian": PRODUCT}),
    ("never been to Oaxaca 😢", {"Oaxaca": PLACE}),
    ("is Kestrel Bank based in Graz?", {"Kestrel_Bank": ORG, "Graz": PLACE}),
    ("i'm going to apply to Northvale Uni", {"Northvale_Uni": ORG}),
    ("did you join the Eastside Chess Club?", {"Eastside_Chess_Club": ORG}),
    ("i wish i owned a Vespa", {"Vespa": PRODUCT}),
    ("gonna buy a Nikon Z6 next month", {"Nikon_Z6": PRODUCT}),
    ("i turned down an offer from Kestrel Bank", {"Kestrel_Bank": ORG}),
    ("planning a trip to Cusco in june", {"Cusco": PLACE}),
    ("who even uses Teams anymore lol", {"Teams": PRODUCT}),
    ("should i get a Pixel 8?", {"Pixel_8": PRODUCT}),
    ("i quit my job at Pelican Freight", {"Pelican_Freight": ORG}),
    ("you should totally move to Ghent!", {"Ghent": PLACE}),
    ("they're huge fans of Arsenal", {"Arsenal": ORG}),
    ("my friend's cousin lives in Hobart", {"Hobart": PLACE}),
    ("Dev joined us for dinner", {"Dev": PERSON}),  # the speaker is no club
    ("i'll stop by Larchmont Books tomorrow", {"Larchmont_Books": ORG}),  # not yet
    ("our office moved to Tallinn last month", {"Tallinn": PLACE}),  # no one's home
    ("I finally beat Tobin at chess", {"Tobin": PERSON}),  # a person beaten is no game
    # A possessor of a kin or role noun names whose the person is, and does none of it.
    ("Wren's mom works at Tandem Health", {"Wren": PERSON, "Tandem_Health": ORG}),
    ("Wren's boss is a partner at Kestrel Bank", {"Wren": PERSON, "Kestrel_Bank": ORG}),
    ("Wren's dad owns a Vespa", {"Wren": PERSON, "Vespa": PRODUCT}),
    ("I got an offer from Kestrel Bank today", {"Kestrel_Bank": ORG}),  # no visit
    ("Bram left for Tallinn yesterday", {"Bram": PERSON, "Tallinn": PLACE}),  # no employer
    ("I drove Bram to the station", {"Bram": PERSON}),  # a person driven is owned by nobody
    ("Pia is a teacher with Bram's patience", {"Pia": PERSON, "Bram": PERSON}),
    ("I bought the bike from Bram", {"Bram": PERSON}),  # a person sold it: no tool
    ("I asked Bram to fix my cover letter", {"Bram": PERSON}),
    ("I finished the race in Tallinn", {"Tallinn": PLACE}),
    ("I work out at Ironside most mornings", {"Ironside": ORG}),  # exercise, not a job
]


@pytest.mark.parametrize(("text", "labels", "expected"), CASES)
def test_corpus_relation(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    expected: tuple[str, str, str],
) -> None:
    assert expected in either_way(find_en(finder, english, text, **labels))


@pytest.mark.parametrize(("text", "labels"), NO_RELATION)
def test_corpus_no_relation(
    finder: RelationExtractor, english: Language, text: str, labels: dict[str, EntityLabel]
) -> None:
    assert find_en(finder, english, text, **labels) == set()


def test_a_person_is_not_located(finder: RelationExtractor, english: Language) -> None:
    """ "Bex is Leith's best barber": a judgement of Bex, no place of hers."""
    found = find_en(finder, english, "Bex is Leith's best barber", Bex=PERSON, Leith=PLACE)
    assert found == {("Ann", "LIKES", "Bex")}


def test_one_lives_in_places_not_in_tools(finder: RelationExtractor, english: Language) -> None:
    """ "living in" a tool is using it a lot; whatever else is read, no home is."""
    found = find_en(finder, english, "I've been living in Ledgerly lately", Ledgerly=PRODUCT)
    assert not {t for t in found if t[1] == "LIVES_IN"}


def test_a_school_ner_calls_a_product_and_an_emoji_after_it_keep_their_frame(
    finder: RelationExtractor, english: Language
) -> None:
    # The parser makes the last emoji the object of "into" and the name its compound.
    text = "my sister Ama just got into Purdue 🎓🎓"
    school = text.index("Purdue")
    found = triples(
        finder.find(
            text,
            "en",
            [
                EntityMention("Ama", PERSON, 10, 13, "spacy:PERSON", 0.8),
                EntityMention("Purdue", PRODUCT, school, school + 6, "spacy:PRODUCT", 0.8),
            ],
            "Ann",
            english(text)[:],
        )
    )
    assert ("Ama", "STUDIES_AT", "Purdue") in found


def test_a_person_a_comma_places_is_not_located(
    finder: RelationExtractor, english: Language
) -> None:
    found = find_en(
        finder, english, "we had lunch with Bex, over in Hobart", Bex=PERSON, Hobart=PLACE
    )
    assert ("Bex", "LOCATED_IN", "Hobart") not in found


@pytest.mark.parametrize(
    ("vote", "expected"),
    [(L.ORG, True), (L.PERSON, False)],  # a given name may be the singular they of a person
)
def test_they_stands_for_a_name_only_ner_called_a_person(
    finder: RelationExtractor, english: Language, vote: EntityLabel, expected: bool
) -> None:
    text = "I quit Dashly last month, I can't stand them"
    start = text.index("Dashly")
    dashly = EntityMention(
        "Dashly", PERSON, start, start + 6, "spacy:PERSON", 0.8, (TypeVote(vote, 1.4, "test"),)
    )
    found = triples(finder.find(text, "en", [dashly], "Ann", english(text)[:]))
    assert (("Ann", "DISLIKES", "Dashly") in found) is expected


def test_possessors_of_kin_are_kin(finder: RelationExtractor, english: Language) -> None:
    """ "X's mum and my mum are sisters": a sentence about two possessors of kin relates them."""
    found = find_en(finder, english, "Wren's mum and my mum are sisters", Wren=PERSON)
    assert ("Ann", "FAMILY_OF", "Wren") in either_way(found), found


def test_going_back_somewhere_makes_no_friend(finder: RelationExtractor, english: Language) -> None:
    """ "go way back" is a friendship; "go back to X with Tobin" is not."""
    text = "we go back to Larchmont Books with Tobin on monday"
    found = find_en(finder, english, text, Larchmont_Books=ORG, Tobin=PERSON)
    assert not any(kind == "FRIEND_OF" for _, kind, _ in found), found


def test_who_is_got_into_something_is_the_object(
    finder: RelationExtractor, english: Language
) -> None:
    """ "Tobin got me into Moonward": I am into it; Tobin owns no one and is into nothing."""
    found = find_en(finder, english, "Tobin got me into Moonward", Tobin=PERSON, Moonward=PRODUCT)
    assert ("Ann", "LIKES", "Moonward") in found, found
    assert not any(source == "Tobin" for source, _, _ in found), found


def test_a_team_that_switched_tools_works_at_neither(
    finder: RelationExtractor, english: Language
) -> None:
    """ "my team from X" is a job at X; "our team switched from X to Y" is not."""
    text = "our team switched from Teams to Zulip"
    found = find_en(finder, english, text, Teams=PRODUCT, Zulip=PRODUCT)
    assert ("Ann", "USES", "Zulip") in found and not any(k == "WORKS_AT" for _, k, _ in found)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Wexley Studios, based in Hobart, makes games", "Hobart"),  # the studio's base
        ("we ate at Crumbs, this tiny place in Leith", "Leith"),  # described, no one's home
    ],
)
def test_a_place_said_of_a_name_is_no_home_of_the_speaker(
    finder: RelationExtractor, english: Language, text: str, place: str
) -> None:
    found = find_en(finder, english, text, **{place: PLACE})
    assert not any(relation[:2] == ("Ann", "LIVES_IN") for relation in found), found


def test_kin_named_is_owned_by_nobody(finder: RelationExtractor, english: Language) -> None:
    """ "your grandson Kyle" is kin of the one addressed, not a thing of theirs."""
    text = "Vernon, your grandson Kyle comes in here twice a week"
    found = find_en(finder, english, text, Vernon=PERSON, Kyle=PERSON)
    assert ("Vernon", "FAMILY_OF", "Kyle") in either_way(found), found
    assert not any(kind == "OWNS" for _, kind, _ in found), found


@pytest.mark.parametrize(
    ("text", "labels", "unwanted"),
    [
        # "got X into Y" moves X; only "got into Y" is a taste
        ("I finally got my app into Quillstore", {"Quillstore": ORG}, {"LIKES"}),
        # a name's own words are no owner or place of it
        ("the Juniper Store rejected my app again", {"Juniper Store": ORG}, {"LOCATED_IN"}),
    ],
)
def test_a_moved_thing_or_a_names_own_words_say_nothing(
    finder: RelationExtractor,
    english: Language,
    text: str,
    labels: dict[str, EntityLabel],
    unwanted: set[str],
) -> None:
    found = find_en(finder, english, text, **labels)
    assert not any(kind in unwanted for _, kind, _ in found), found


def test_best_friends_is_no_verdict(finder: RelationExtractor, english: Language) -> None:
    """ "best" of "best friends" judges no thing: no like of Bram."""
    found = find_en(finder, english, "Bram is best friends with Pia", Bram=PERSON, Pia=PERSON)
    assert not any(kind == "LIKES" for _, kind, _ in found), found


@pytest.mark.parametrize(
    ("text", "labels"),
    [
        # a given name is someone, not a means
        ("Sarah is how I met Tom", {"Sarah": PERSON, "Tom": PERSON}),
        # supposed, not said
        ("If I couldn't cook without Yumbly, I'd starve", {"Yumbly": PRODUCT}),
        # a person trading somewhere lives or works there, and is not located
        ("Maya sells jewelry in Austin", {"Maya": PERSON, "Austin": PLACE}),
    ],
)
def test_no_use_or_place_of_a_person_or_a_supposed_need(
    finder: RelationExtractor, english: Language, text: str, labels: dict[str, EntityLabel]
) -> None:
    found = find_en(finder, english, text, **labels)
    assert not any(kind in {"USES", "LOCATED_IN"} for _, kind, _ in found), found

"""Chinese relations from regexes: the table's rows mark endpoints with groups src and tgt.

There is no Chinese parser here, so a row spells out the clause: where it starts, its subject,
the adverbs that may follow, the trigger and the target. Macros keep the rows readable:

- ``{B}`` the start of a clause, with connectives that may open it (然后, 不过, 我记得 …);
- ``{S}`` the subject, group ``src`` (我, 我们, 他, 她 or a name of up to eight characters);
- ``{SN}`` a named subject only, possibly after a kin word (我弟弟罗川);
- ``{A}`` adverbs and time words between subject and verb (也, 一直, 现在, 上周 …);
- ``{T}`` the target, group ``tgt``, shortest first, so the row's right context bounds it;
- ``{P}`` a place as target, shorter (at most seven characters);
- ``{N}`` a person's name after a kin word (group ``tgt``, two or three characters);
- ``{KIN}`` kinship nouns, ``{END}`` the end of a clause (lookahead).

The macros are defined in ``table.py``, which validates the rows.

An endpoint is the mention that overlaps its group, else the group's own text (Chinese names
are often not mentions yet; the integrator adds them). A clause without a subject continues
the subject of the clause before it in the same fact ("小红去X实习，然后再回Y上课").
"""

from __future__ import annotations

import re
from functools import cache

import jieba.posseg

from service.nlp.entities.chinese_frames import COUNTED_INSIDE
from service.nlp.entities.chinese_lexicon import ChineseLexicon
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.relations.chinese_subjects import is_you, rhetorical, without_rhetorical
from service.nlp.relations.discourse import NO_CONVERSATION, Conversation
from service.nlp.relations.table import (
    CJK,
    NAME_STOPS,
    Endpoint,
    RelationMention,
    RelationRow,
    RelationType,
    compile_row_regex,
    friend_words,
    keep_relation,
    kin_words,
    mention_alternations,
    mention_endpoint,
    peer_words,
    relation_words,
    speaker_endpoint,
    uses_mentions,
)
from service.nlp.time.tags import leading_time

_NOT_SUBJECT = re.compile(
    r"^(?:你|您|大家|他们|她们|它们|这|那|哪|谁|什么|我们[^，]|咱|如果|要是|假如)"
)
# Not 十几个; nor 玩了几天, which says (or, asked, takes for granted) that it happened.
QUESTION = re.compile(r"[吗？?]|是不是|哪|什么|谁|怎么|(?<![这那前后十了])几[个天]")
_TIME = re.compile(
    r"^(?:[上下这今明昨去前后每]个?[天周月年]|周[末一二三四五六日]|[暑寒]假|十一|国庆|春节)"
)
_VERB_INSIDE = re.compile(r"喜欢|讨厌|觉得|打算|想|要|用|在|去|是|有|说|会|能")
NEGATION = re.compile(r"不(?!过|少|错|久|同)|没|(?<!特|区|分|个|级|类|告|离)别")
PLAN = re.compile(
    r"想|打算|准备|计划|(?<![主需重只])要|将|(?<![开聚])会(?![计员])|下[个周]|明[天年]"
)
# A state that begins (入职, 搬到, 考上, 买) is not yet one when a plan word precedes it.
PLANNED_TYPES = frozenset(
    {
        RelationType.VISITED,
        RelationType.LIVES_IN,
        RelationType.WORKS_AT,
        RelationType.STUDIES_AT,
        RelationType.MEMBER_OF,
        RelationType.OWNS,
    }
)
_PERSONAL = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})
_CLAUSE = re.compile(r"[，,。！？；;!?]")
_SPLIT_SUBJECT = re.compile(r"[和跟与]")
_OTHERS = re.compile(r"[他她你您]|别人|人家|大家")
_PRONOUN = re.compile(r"[我你您他她]")
_DEMONSTRATIVE = re.compile(r"^[这那哪]")
# 学校后门那家串串: a thing pointed at with 这/那 and a measure word is described, not named.
_POINTED_AT = re.compile(r"[这那][家个种条座所间位]")
_NUMBER_FIRST = re.compile(r"^[快近将约]?[一二两三四五六七八九十百几]{1,2}(?:[年个岁天]|$)")
_ASPECT = re.compile(r"[了过着]")
_COUNTED = re.compile(r"^[一二两三四五六七八九十几半每][趟次回遍下天年个家位圈]")
# A verb after a place in a target: what one does there (去了广州读大学), not a name.
_VERB_FIRST = re.compile(r"^(?:读|念|上|在|去|到|做|当|学|教|开|看|玩)")
# A subject that is a clause of time: 毕业以后就留在…, 毕业后留在…, 小时候在…
_TIME_CLAUSE = re.compile(r"(?:以后|之后|以前|之前|(?<=[\u4e00-\u9fff])[后前]|时候|那会儿?)$")
# Whose subjects are people, so that a subject no mention names must look like a name.
_PERSON_SOURCE = frozenset(set(RelationType) - {RelationType.LOCATED_IN, RelationType.CREATED})
_OPENS_WITH_I = compile_row_regex("^{B}{A}我(?!们)")
_OPENING = compile_row_regex("^{B}{A}")
_VOCATIVE_AFTER = re.compile(r"[，,！!～~：:]|$")
_NAME_NEXT = re.compile(rf"(?![{NAME_STOPS}])[{CJK}]{{2,3}}?(?=[{NAME_STOPS}，,。！？\s]|$)")
_NOT_IN_NAMES = re.compile(r"[了的在是吗呢吧着过不没]")
_DEGREE_FIRST = re.compile(r"^(?:挺|很|太|蛮|怪|更|最|特别|非常|超级|比较|有点)")  # 挺忙: no name
_ORG_TAIL = re.compile(
    r"(?:大学|学院|中学|小学|公司|集团|科技|银行|医院|研究所|研究院|实验室|工作室|酒店|餐厅|书店|"
    r"中心|俱乐部|乐队|协会|社团|团队|球队|合唱团)$"
)
WE_CONFIDENCE = 0.8
# Above this count in jieba's dictionary a word is a common word, not a name (加入, 研究生).
COMMON_WORD_FREQ = 1000
_MAJOR = re.compile(rf"^([{CJK}]+?(?:大学|学院|大))[{CJK}]{{2,8}}(?:专业|系)$")
_THE_TWO_OF_US = frozenset({"咱俩", "我俩", "咱们俩", "我们俩", "咱两个", "我们两个"})
_ME_OR_YOU = {"我": 0, "你": 1, "您": 1}  # which of (speaker, 你) a pronoun target is
_INCLUSIVE_WE = frozenset({"咱们", "咱"})  # unlike 我们, always takes in the one addressed
_WE_AND_YOU = frozenset({"我们", "咱们", "你们"})  # 我们美团, 你们昆明: a group the party is in
_NAMED_LABELS = frozenset({EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE})
_FOR = frozenset({"给", "为", "替"})  # 在给X打工: working for X
_PLACED = frozenset({RelationType.LIVES_IN, RelationType.LOCATED_IN})
_NO_PLACE = frozenset({EntityLabel.PRODUCT, EntityLabel.PERSON})
_MY_HOME = frozenset({"家里", "我家", "我家里", "我们家"})  # the speaker's household


class ChineseRelations:
    """The Chinese rows of the relation table, applied to one fact at a time."""

    def __init__(self, rows: list[RelationRow]) -> None:
        self.rows = rows
        self._static = {row.id: compile_row_regex(row.regex or "") for row in rows}
        self._by_mentions = {row.id for row in rows if uses_mentions(row.regex or "")}

    def find(
        self,
        text: str,
        mentions: list[EntityMention],
        speaker: str | None,
        context: Conversation = NO_CONVERSATION,
    ) -> list[RelationMention]:
        """Relations of ``text``; ``context`` says whom the message answers (咱俩), whom it
        addresses (你; discourse.py)."""
        addressee, you = context.answers, context.you
        found: list[RelationMention] = []
        people: list[Endpoint] = []  # named in this fact as persons (kin, friends)
        me = speaker_endpoint(speaker)
        # A fact that opens with 我, or with someone's name (王磊挺好的，刚跳槽去了X), keeps
        # them as the subject of clauses that have none.
        opener = _opening_person(text, mentions)
        last_sources: list[Endpoint] = [me] if me and _opens_with_i(text) else opener
        # A fact that opens with someone unnamed (我老公在X，…) is not the speaker's.
        unnamed_first = _opens_with_kin(text)
        for _, row, match in self._matches(text, mentions):
            if not _asserted(text, match, row):
                continue
            # 你二舅孙强: of kin and friends, 你 is whom the line answers unless a name says
            # otherwise, as in English ("your brother Eli").
            listener = you or (addressee if row.type in _PERSONAL else None)
            sources = _sources(text, match, mentions, (speaker, listener), people, row, context)
            if sources is None:
                sources = _dropped_subject(text, match, mentions, row, me, last_sources)
                if unnamed_first and not last_sources and row.type not in _PERSONAL:
                    sources = []
            elif sources and _opens_clause(row):
                last_sources = sources
            target = _target(text, match, mentions, row, addressee, (speaker, listener))
            if target is None:
                continue
            if row.type in {RelationType.FAMILY_OF, RelationType.FRIEND_OF}:
                target = Endpoint(target.name, EntityLabel.PERSON, target.start, target.end)
                people.append(target)
                last_sources = [target]  # 这是我儿子钟原，刚考上…: the one just named goes on
            for source in sources:
                confidence = row.confidence * (WE_CONFIDENCE if _is_we(match) else 1.0)
                relation_type = _relation_type(row, source, target)
                if relation_type in _PERSON_SOURCE and source.label is EntityLabel.PLACE:
                    continue  # 杭州有个X: a place has what is there, it owns nothing
                if relation_type in _PLACED and target.label in _NO_PLACE:
                    continue  # 在玩X: 在 of an action in progress, X no place
                keep_relation(
                    found,
                    RelationMention(relation_type, source, target, f"pattern:{row.id}", confidence),
                )
        return found

    def _matches(
        self, text: str, mentions: list[EntityMention]
    ) -> list[tuple[int, RelationRow, re.Match[str]]]:
        """Every row's matches, by start; rows over mention macros use this fact's mentions."""
        alternatives = mention_alternations(mentions)
        found = []
        for row in self.rows:
            if row.id in self._by_mentions:
                regex = compile_row_regex(row.regex or "", alternatives)
            else:
                regex = self._static[row.id]
            found += [(m.start(), row, m) for m in regex.finditer(text)]
        return sorted(found, key=lambda item: item[0])


def _opens_with_i(text: str) -> bool:
    """Whether the fact opens with 我 as its subject: not 我们, not 我老公 (someone else)."""
    opening = _OPENS_WITH_I.match(text)
    return opening is not None and kin_prefix().match(text[opening.end() - 1 :]) is None


def _opening_person(text: str, mentions: list[EntityMention]) -> list[Endpoint]:
    """The person whose name opens the fact as its subject: not a vocative (王磊，你…)."""
    opening = _OPENING.match(text)
    at = opening.end() if opening else 0
    for m in mentions:
        if m.start == at and m.voted_label is EntityLabel.PERSON:
            return [] if _VOCATIVE_AFTER.match(text, m.end) else [mention_endpoint(m)]
    return []


def _opens_with_kin(text: str) -> bool:
    """Whether the fact opens with a kin, friend or peer noun and no name after it (我老公在
    X, 同事说…): its clauses with no subject are that person's, whom the graph cannot name."""
    opening = _OPENING.match(text)
    at = opening.end() if opening else 0
    kin = kin_prefix().match(text[at:])
    return kin is not None and not _NAME_NEXT.match(text, at + kin.end())


def _dropped_subject(
    text: str,
    match: re.Match[str],
    mentions: list[EntityMention],
    row: RelationRow,
    me: Endpoint | None,
    last_sources: list[Endpoint],
) -> list[Endpoint]:
    """No subject: the last one, or the speaker, whose dropped subject it is in a chat
    (上周刚提了辆车) unless someone else was named before it."""
    if row.type in _PERSONAL and row.speaker_default:
        return [me] if me else []  # 跟好朋友X去…: the speaker's friend
    said = match.end("src") if _has(match, "src") else match.start()
    mine = row.speaker_default or not _someone_before(text, said, mentions)
    return last_sources or ([me] if me and mine else [])


def _someone_before(text: str, start: int, mentions: list[EntityMention]) -> bool:
    """Whether a third person is named or pointed to before ``start`` (他说…, 小李…)."""
    if _OTHERS.search(text, 0, start):
        return True
    return any(m.label is EntityLabel.PERSON and m.end <= start for m in mentions)


def _opens_clause(row: RelationRow) -> bool:
    """Whether the row's subject opens its clause ({B}), so that later clauses continue it."""
    return (row.regex or "").startswith("{B}")


def _relation_type(row: RelationRow, source: Endpoint, target: Endpoint) -> RelationType:
    """The row's type, or the one its source's, target's label or target's head calls for."""
    if row.person_type is not None and source.label is EntityLabel.PERSON:
        if row.person_type is RelationType.LIVES_IN and target.label is EntityLabel.ORG:
            return _member_type(target)  # 现在在X (an organisation): where one works
        return row.person_type
    if row.place_type is not None and target.label is EntityLabel.PLACE:
        return row.place_type
    head_type = relation_words().head_type(target.name)
    if row.by_head and head_type is not None:
        return RelationType(head_type)
    if row.type is RelationType.WORKS_AT and head_type == RelationType.MEMBER_OF:
        return RelationType.MEMBER_OF  # 在X协会当志愿者: a club has members, not staff
    return row.type


def _member_type(target: Endpoint) -> RelationType:
    """Where a person is, when it is an organisation: a school's student, a club's member,
    else an employee (by the head of its name)."""
    head = relation_words().head_type(target.name)
    return RelationType(head) if head is not None else RelationType.WORKS_AT


def _yours(match: re.Match[str]) -> bool:
    """你们 right before the name (你们昆明, 你们美团): the town or employer of the one
    addressed; 你们 as a clause's subject is several people, none of them named."""
    groups = match.re.groupindex
    if "tgt" not in groups or match.group("src") != "你们":
        return False
    return match.string[match.end("src") : match.start("tgt")] in _POINTERS


_POINTERS = frozenset({"", "那个", "这个", "那家", "这家"})  # 你们那个钓友会 is theirs too


def _is_we(match: re.Match[str]) -> bool:
    return "src" in match.re.groupindex and match.group("src") in _WE_AND_YOU


def _asserted(text: str, match: re.Match[str], row: RelationRow) -> bool:
    """Not asked ("…吗？", "是不是") and not denied (不在, 没去) in the clause of the match."""
    start = max((m.end() for m in _CLAUSE.finditer(text, 0, match.start())), default=0)
    stop = _CLAUSE.search(text, match.end())
    clause = text[start : stop.end() if stop else len(text)]
    personal = row.type in {RelationType.FAMILY_OF, RelationType.FRIEND_OF}
    told = rhetorical(clause)  # 你不是在X上班吗: said to be so
    # 你们那个X…吗？ asks about X, not whether X is theirs
    if not personal and not told and QUESTION.search(clause) and not _yours(match):
        return False
    between_start = match.start("src") if _has(match, "src") else match.start()
    between = text[between_start : match.start("tgt")]
    between = without_rhetorical(between) if told else between
    before_target = text[start : match.start("tgt")]
    if not personal and unreal().search(text[start : match.start("tgt")]):
        return False  # 如果, 打算, 想: supposed or wanted, not said to be so
    if row.type in PLANNED_TYPES and PLAN.search(before_target):
        return False  # 打算去, 下个月入职: not yet
    if row.needs_past and not compile_row_regex("{PAST}").search(before_target):
        return False  # 去X玩 is a visit only when a past time word says so
    return row.type is RelationType.DISLIKES or not NEGATION.search(between)


@cache
def surnames() -> frozenset[str]:
    """Single-character family names (zh_surnames.txt)."""
    return ChineseLexicon.load().surnames


@cache
def unreal() -> re.Pattern[str]:
    return compile_row_regex("{UNREAL}")


def _has(match: re.Match[str], group: str) -> bool:
    return group in match.re.groupindex and match.group(group) is not None


def _sources(
    text: str,
    match: re.Match[str],
    mentions: list[EntityMention],
    said_by_to: tuple[str | None, str | None],
    people: list[Endpoint],
    row: RelationRow,
    context: Conversation = NO_CONVERSATION,
) -> list[Endpoint] | None:
    """The subject's endpoints; None when the clause has no subject (continue the last one).
    ``said_by_to``: the speaker, and whom 你 means; ``context``: whom 他/她 may mean when the
    fact names nobody."""
    if not _has(match, "src") or not match.group("src"):
        return None
    speaker, you = said_by_to
    subject, offset = match.group("src"), match.start("src")
    time_words = _time_prefix().match(subject)  # 去年五一我去…: the subject is 我
    if time_words and time_words.end() < len(subject):
        subject, offset = subject[time_words.end() :], offset + time_words.end()
    if is_you(subject) or _yours(match):  # 你去年不是来过X嘛: the one addressed
        return [Endpoint(you, EntityLabel.PERSON)] if you else []
    if _TIME_CLAUSE.search(subject):
        return _before_time_clause(subject, offset, mentions)
    subject = _before_time_word(subject)  # 甜甜上个月考进了…: the subject is 甜甜
    if subject in _INCLUSIVE_WE and you and speaker:  # 咱们公司: the one addressed is in it too
        return [Endpoint(speaker, EntityLabel.PERSON), Endpoint(you, EntityLabel.PERSON)]
    named = any(m.start == offset and m.end == offset + len(subject) for m in mentions)
    if _time_prefix().fullmatch(subject) or _TIME.match(subject) or _time_word(subject):
        return None  # a time word: the subject is the last one
    if not named and len(subject) > 2 and _VERB_INSIDE.search(subject):
        return None  # a verb phrase (更喜欢用X): the subject is the last one
    if row.type in _PERSON_SOURCE and not _person_like(subject, offset, mentions):
        return None  # a topic (记账一直用的是X, 上周末带孩子逛了X): the subject is dropped
    if not named and row.type not in _PERSON_SOURCE and _has_locative(subject):
        return None  # 毕业后留在了X: a clause of time places nothing, its subject is dropped
    found: list[Endpoint] = []
    for part in _subject_parts(subject):  # 林悦和江帆, 我和女朋友小禾
        found += _subject(part, offset, text, mentions, speaker, people, context)
        offset += len(part) + 1
    return found


def _before_time_clause(
    subject: str, start: int, mentions: list[EntityMention]
) -> list[Endpoint] | None:
    """Who a time clause (毕业后, 退休前) is said of: a person named first (小雨毕业后), nobody
    the graph can name after a bare kin noun (我爸退休前), or else the last subject."""
    kin = kin_prefix().match(subject)
    named = start + (kin.end() if kin else 0)
    person = next(
        (m for m in mentions if m.start == named and m.voted_label is EntityLabel.PERSON), None
    )
    if person is not None and person.end < start + len(subject):
        return [mention_endpoint(person)]
    return [] if kin else None


def _subject_parts(subject: str) -> list[str]:
    """A subject split at 和/跟/与 when each part can be one (天和集团 is one name)."""
    parts = _SPLIT_SUBJECT.split(subject)
    if all(part in {"我", "他", "她"} or len(part) >= 2 for part in parts):
        return parts
    return [subject]


def _person_like(subject: str, start: int, mentions: list[EntityMention]) -> bool:
    """A subject that can name people: a pronoun, a kin word, a mention, a family name or
    小/老/阿 first, a doubled name (甜甜), Latin letters, or 我 before a verb (修图我 …)."""
    if subject[0] in "我他她" or subject.endswith("我") or kin_prefix().match(subject):
        return True
    if any(m.start == start for m in mentions) or _SPLIT_SUBJECT.search(subject):
        return True
    first = subject[0]
    doubled = len(subject) >= 2 and subject[0] == subject[1]
    return first.isascii() or doubled or first in surnames() or first in "小老阿"


def _is_verb(word: str) -> bool:
    """Whether jieba reads ``word`` as verbs only (嫁/到) or as one common verb (加入): no
    one's name (a rarer one may be: 飞扬)."""
    words = list(jieba.posseg.cut(word, HMM=False))
    if len(word) < 2 or not all(w.flag == "v" for w in words):
        return False
    return len(words) > 1 or _count(word) >= COMMON_WORD_FREQ


def _count(word: str) -> int:
    """How often jieba's dictionary counts ``word`` (0: a word it does not know)."""
    count: int = jieba.dt.FREQ.get(word, 0) or 0
    return count


def _is_common_noun(word: str) -> bool:
    """Whether jieba reads ``word`` as one frequent common noun (研究生, 公司): a kind of
    person or thing, not a name."""
    words = list(jieba.posseg.cut(word, HMM=False))
    if len(words) != 1 or words[0].flag not in ("n", "vn"):
        return False
    return _count(word) >= COMMON_WORD_FREQ


def _has_locative(word: str) -> bool:
    """Whether jieba reads a locative word in ``word`` (毕业/n 后/f 留/v): a phrase of time
    or place, not a name."""
    return any(w.flag == "f" for w in jieba.posseg.cut(word, HMM=False))


def _is_phrase(word: str) -> bool:
    """Whether jieba reads ``word`` as a phrase with a word of two characters or more that is
    a verb, a time or place word, an adverb or a preposition (退休/v 前/f), which no name holds
    (jieba cuts an unknown name into characters: 车/zg 振/v 宇/nr)."""
    words = list(jieba.posseg.cut(word, HMM=False))
    return len(words) > 1 and any(
        len(w.word) > 1 and w.flag.startswith(("v", "t", "f", "d", "p")) and not _doubled(w.word)
        for w in words
    )


def _doubled(word: str) -> bool:
    """A doubled character (可可, 朵朵): a given name more often than the word jieba tags."""
    return len(word) == 2 and word[0] == word[1]


def _subject(
    part: str,
    start: int,
    text: str,
    mentions: list[EntityMention],
    speaker: str | None,
    people: list[Endpoint],
    context: Conversation = NO_CONVERSATION,
) -> list[Endpoint]:
    """One subject's endpoint: 我 the speaker, 他/她 resolved, a name (after a kin word)."""
    if len(part) < 1 or _time_word(part):
        return []  # 昨晚跟他…: a time word and a companion, no one named
    if part[0] in "和跟与同" and kin_prefix().fullmatch(part[1:]):
        return []  # (我)和闺蜜去了…: a companion by a kin or friend noun, no one named
    if part in {"我", "我们", "咱们"} or _is_my_side(part, start, mentions):
        me = speaker_endpoint(speaker)
        return [me] if me else []
    if part in {"他", "她"}:
        named = _resolve_person(text[:start], mentions, people, speaker)
        return _named_before(text[:start], speaker, context) if named is None else named
    kin = kin_prefix().match(part)  # "我弟弟罗川也在杭州": the subject is 罗川
    if kin and len(part) - kin.end() >= 2:
        start, part = start + kin.end(), part[kin.end() :]
    elif kin and kin.end() == len(part):  # 我弟弟, 同学: nobody the graph can name
        return []
    if _NOT_SUBJECT.match(part) or part[0] in "我他她" or not _is_name(part):
        return []
    if not _names(mentions, start, start + len(part)) and _is_common_noun(part):
        return []  # 研究生在浙大: a kind of person, no one the graph can name
    found = _endpoint(part, start, mentions, people, at_start=False)
    return [found] if found else []


@cache
def kin_prefix() -> re.Pattern[str]:
    """A possessor and a kin or friend noun opening a subject (我弟弟, 你表妹, 葛琳的同学)."""
    nouns = "|".join(sorted((*kin_words(), *friend_words(), *peer_words()), key=len, reverse=True))
    short = "".join(relation_words().classes.get("KIN_SHORT", ()))  # 我姐, 我妈: no name
    mine = rf"[我你他她]家?的?(?:[{short}](?![{short}夫们儿]))" if short else "(?!)"
    return re.compile(rf"^(?:(?:[我你他她]家?的?|[{CJK}]{{2,3}}的)?(?:{nouns})|{mine})")


def owns_a_person(after: str) -> bool:
    """What follows 我 is a kin or person noun (弟弟在复旦读书), or one with a word or two that
    qualify it (大学室友, 高中同学): 我 owns whom the clause is about, and is not its subject."""
    nouns = _person_nouns()
    return after.startswith(nouns) or any(
        after[n:].startswith(nouns) and not _NOT_QUALIFYING.search(after[:n]) for n in (2, 3)
    )


# What cannot stand between 我 and a noun it qualifies (我今天和同事: 和 joins two people).
_NOT_QUALIFYING = re.compile(r"[\W和跟与同给对找带陪被把在去了也都还就又很]")


@cache
def _person_nouns() -> tuple[str, ...]:
    """The type evidence's person nouns and the relation words' kin, friends and peers (婆婆,
    死党, 同事)."""
    short = relation_words().classes.get("KIN_SHORT", ())  # 我妈, 我姐
    people = (*kin_words(), *short, *friend_words(), *peer_words())
    return (*load_type_evidence().zh.person_nouns, *people)


@cache
def _time_prefix() -> re.Pattern[str]:
    """Time words opening a subject: 去年五一, 上周末, 最近."""
    past = compile_row_regex("{PAST}").pattern
    others = "[这那]次|周末|[上下]午|晚上|最近|现在|目前|平时|当时|以后|之后|后来"
    return re.compile(rf"(?:{past}|{_TIME.pattern[1:]}|{others})+")


def _before_time_word(subject: str) -> str:
    """A subject cut before a time word inside it (豆豆上个月考 → 豆豆), if two characters
    stand before it."""
    inside = _time_prefix().search(subject, 2)
    return subject[: inside.start()] if inside else subject


def _is_my_side(part: str, start: int, mentions: list[EntityMention]) -> bool:
    """The speaker said with a place of theirs or a verb after 我 (我宿舍, 家里, 我记跑步): no
    one else is named in it, and no kin or friend noun follows 我."""
    if part in _MY_HOME or (part.endswith("我") and 2 <= len(part) <= 5):
        return True  # 修图我都用X: a topic, then the speaker
    if not part.startswith("我") or part.startswith("我们") or not 2 <= len(part) <= 5:
        return False
    if kin_prefix().match(part) or owns_a_person(part[1:]):
        return False  # 我弟弟, 我大学室友: someone of mine, not I
    end = start + len(part)
    named = (m for m in mentions if m.label in _NAMED_LABELS)
    return not any(start < m.end and m.start < end for m in named)


_WHEN = ("时", "时候")


def _endpoint(
    surface: str,
    start: int,
    mentions: list[EntityMention],
    people: list[Endpoint],
    at_start: bool,
) -> Endpoint | None:
    if len(surface) < 2 or surface.endswith(_WHEN):
        return None  # 我爸年轻时…: a time of life, not the father's name
    lead = leading_time(surface, "zh")
    if lead:  # 十月二号我们在成都见: the time is no part of who
        surface, start = surface[lead:], start + lead
        if len(surface) < 2 or _PRONOUN.search(surface):
            return None
    end = start + len(surface)
    inside = _mention_inside(mentions, start, end, at_start)
    if inside is not None:
        return mention_endpoint(inside)
    if any(m.start < end < m.end for m in mentions if m.label in _NAMED_LABELS):
        return None  # 清华大学在X: 学 of the name read as a verb; no subject ends within a name
    person = [m for m in mentions if m.start == start < m.end < end]
    if person and person[0].voted_label is EntityLabel.PERSON:
        return mention_endpoint(person[0])  # 宋佳毕业以后…: the name, not the name and a verb
    known = any(p.name == surface for p in people)
    label = EntityLabel.PERSON if known else _overlapping_label(mentions, start, end)
    return Endpoint(surface, label, start, end)


def _mention_inside(
    mentions: list[EntityMention], start: int, end: int, at_start: bool = True
) -> EntityMention | None:
    """The longest mention that ends the group's span (基本都是Python → Python) or, for a
    target, starts it (Figma画原型 → Figma). One that reaches outside it (在华为公司, 成都市 for
    成都市区) or, for a subject, stops short of its end (奥克兰 in 奥克兰大学) loses to the
    group's own text."""
    inside = [m for m in mentions if start <= m.start and m.end <= end]
    inside = [m for m in inside if m.end == end or (at_start and m.start == start)]
    inside = [m for m in inside if m.label is not EntityLabel.TEMPORAL]
    return max(inside, key=lambda m: m.end - m.start) if inside else None


def _innermost_place(mentions: list[EntityMention], start: int, end: int) -> EntityMention | None:
    """The last of two or more places that fill the group (江西赣州: 赣州, in 江西)."""
    places = sorted(
        (m for m in mentions if start <= m.start and m.end <= end), key=lambda m: m.start
    )
    if len(places) < 2 or any(m.label is not EntityLabel.PLACE for m in places):
        return None
    return places[-1] if places[-1].end == end else None


def _mention_going_on(mentions: list[EntityMention], start: int, end: int) -> EntityMention | None:
    """A mention that starts with the group and runs a character or two past it: the shortest
    group stopped where the row's right context matched inside the name (用随手记: 随手 + 记)."""
    longer = [m for m in mentions if m.start == start and end < m.end <= end + 2]
    return max(longer, key=lambda m: m.end) if longer else None


def _mention_for(
    mentions: list[EntityMention], text: str, start: int, end: int
) -> EntityMention | None:
    """A name the group holds after 给/为/替 and before an adverb of two characters at most:
    在给X远程打工 works for X."""
    for m in mentions:
        inside = start < m.start and m.end <= end and m.label is not EntityLabel.TEMPORAL
        if inside and text[start : m.start] in _FOR and m.end + 2 >= end:
            return m
    return None


def _mention_cut_short(mentions: list[EntityMention], start: int, end: int) -> EntityMention | None:
    """A mention that starts the group and stops one character short of its end: the row's
    right context began after a character that is no part of the name (北京 + 办)."""
    short = [m for m in mentions if m.start == start and m.end == end - 1]
    return short[0] if short else None


def _mention_around(mentions: list[EntityMention], start: int) -> EntityMention | None:
    """A mention the group starts inside: a verb of the row took the name's first character
    (爱喝 + 喜茶 read as 爱喝喜 + 茶); no target starts within a name."""
    around = [m for m in mentions if m.start < start < m.end and m.label in _NAMED_LABELS]
    return around[0] if around else None


def _names(mentions: list[EntityMention], start: int, end: int) -> bool:
    """Some mention is the group's text, give or take one character (成都 for 成都市)."""
    for m in mentions:
        overlap = min(end, m.end) - max(start, m.start)
        if overlap > 0 and (end - start) + (m.end - m.start) - 2 * overlap <= 1:
            return True
    return False


def _overlapping_label(mentions: list[EntityMention], start: int, end: int) -> EntityLabel:
    """The label of a mention that is the group's text give or take a character (成都市 for
    成都); a part of it (上海 in 上海交通大学) says nothing about the whole."""
    for m in mentions:
        if _names([m], start, end):
            return m.label
    return EntityLabel.OTHER


def _resolve_person(
    before: str, mentions: list[EntityMention], people: list[Endpoint], speaker: str | None
) -> list[Endpoint] | None:
    """他/她: the one person named before it in the fact; nothing when two are, None when
    nobody is."""
    names = {p.name: p for p in people if p.end is not None and p.end <= len(before)}
    for m in mentions:
        if m.label is EntityLabel.PERSON and m.end <= len(before) and m.text != speaker:
            names.setdefault(m.text, mention_endpoint(m))
    if not names:
        return None
    return list(names.values()) if len(names) == 1 else []


def _named_before(before: str, speaker: str | None, context: Conversation) -> list[Endpoint]:
    """他/她 of a fact that names nobody (文博可踏实了。他妈妈淑芬…): the one person the
    message's earlier sentences, else the last messages, named, neither the speaker nor the one
    answered; nobody after a kin or friend noun (我女朋友…她), who is that person."""
    if kin_prefix().search(before):
        return []
    exclude = [name for name in (speaker, context.answers) if name]
    name = context.last_named(exclude)
    return [Endpoint(name, EntityLabel.PERSON)] if name else []


def _target(
    text: str,
    match: re.Match[str],
    mentions: list[EntityMention],
    row: RelationRow,
    addressee: str | None = None,
    said_by_to: tuple[str | None, str | None] = (None, None),
) -> Endpoint | None:
    start, end = match.span("tgt")
    if text[start:end] in _THE_TWO_OF_US:  # 咱俩是老同学: the one the speaker answers
        return Endpoint(addressee, EntityLabel.PERSON) if addressee else None
    if row.type in _PERSONAL and text[start:end] in _ME_OR_YOU:  # 我是你哥: speaker and 你
        party = said_by_to[_ME_OR_YOU[text[start:end]]]
        return Endpoint(party, EntityLabel.PERSON) if party else None
    trimmed = _target_words(text, start, end, mentions, row)
    if trimmed is None:
        return None
    surface, start, end = trimmed
    if row.target_mention and not _names(mentions, start, end):
        return None
    inside = (
        _innermost_place(mentions, start, end)
        or _mention_around(mentions, start)
        or _mention_inside(mentions, start, end, at_start=not row.target_mention)
    )
    inside = (
        inside
        or _mention_going_on(mentions, start, end)
        or _mention_for(mentions, text, start, end)
    )
    if inside is None and row.target_mention:
        inside = _mention_cut_short(mentions, start, end)  # 在北京办: 北京, not 北京办
    if row.type is RelationType.WORKS_AT and _unnamed_department(surface, start, end, mentions):
        if inside is None or inside.label is not EntityLabel.ORG:
            return None  # 在结算中心做审核: a part of the employer named elsewhere
        return mention_endpoint(inside)  # 在蓝鲸银行结算中心: the bank
    rest = text[inside.end : end] if inside is not None else ""
    if rest and _ORG_TAIL.search(rest) and not _VERB_FIRST.match(rest):
        inside = None  # 上海 in 上海交通大学: the group names the university (not 广州读大学)
    if inside is not None:
        target = mention_endpoint(inside)
    elif len(surface.strip()) < 2 or _PRONOUN.search(surface) or _DEMONSTRATIVE.match(surface):
        return None  # 到了给我打电话, 这家店是我开的: no name holds a pronoun or 这/那
    elif _POINTED_AT.search(surface):
        return None
    elif _COUNTED.match(surface):
        return None  # 去日本玩了一趟: a count, no name
    else:
        label = _overlapping_label(mentions, start, end)
        target = Endpoint(surface.strip(), label, start, start + len(surface.strip()))
    if row.target_labels and target.label not in row.target_labels:
        return None
    # 在武汉工作, 在上海一家律所上班: a city, or an unnamed firm in it, is no employer.
    unnamed = target.label is EntityLabel.PLACE or COUNTED_INSIDE.search(text[start:end])
    if row.type is RelationType.WORKS_AT and row.place_type is None and unnamed:
        return None
    return target


def _target_words(
    text: str, start: int, end: int, mentions: list[EntityMention], row: RelationRow
) -> tuple[str, int, int] | None:
    """The target group's words that may name it, with their span: a kin's or friend's name
    without what follows it, a school without the major, a thing without its possessor."""
    surface = text[start:end]
    if row.type in {RelationType.FAMILY_OF, RelationType.FRIEND_OF}:
        surface = _trim_name(surface)
        if not _is_name(surface) or _time_prefix().fullmatch(surface) or surface.endswith(_WHEN):
            return None  # 我侄女以后要…, 我爸年轻时…: 以后, 年轻时 are no names
        if _DEGREE_FIRST.match(surface) and not _names(mentions, start, start + len(surface)):
            return None  # 我女朋友挺忙的: an adverb of degree opens no name
        if not _names(mentions, start, start + len(surface)) and _is_phrase(surface):
            return None  # 我妈退休前…: a verb and a time word are no name
        if not _names(mentions, start, start + len(surface)) and _is_verb(surface):
            return None  # 我女儿加入了…: a verb is no name
        if not _names(mentions, start, start + len(surface)) and _ASPECT.match(
            text, start + len(surface)
        ):
            return None  # 我弟考上了…: what takes 了 is a verb, whatever jieba counts
        if _NUMBER_FIRST.match(surface):
            return None  # 认识快二十年: a number is no name
        return surface, start, start + len(surface)
    if row.type is RelationType.STUDIES_AT:
        major = _MAJOR.match(surface)  # 江理大口腔医学专业 → 江理大
        if major:
            surface, end = major.group(1), start + len(major.group(1))
    owned = _after_possessor(surface, start, mentions)  # 学校的长风电竞社 → 长风电竞社
    return owned, start + len(surface) - len(owned), end


def _unnamed_department(surface: str, start: int, end: int, mentions: list[EntityMention]) -> bool:
    """A target ending in a department's word (中心, 研发部, 项目组) that no mention names:
    not a site (总部), a branch (分行) or a club (俱乐部) either."""
    words = relation_words().classes
    if not surface.endswith(words.get("DEPARTMENT", ())) or _names(mentions, start, end):
        return False
    heads = [w for group in relation_words().heads.values() for w in group]
    others = [*words.get("SITE", ()), *words.get("BRANCH", ()), *heads]
    return not any(surface.endswith(w) and len(w) > 1 for w in others)


def _after_possessor(surface: str, start: int, mentions: list[EntityMention]) -> str:
    """What follows the last 的 of a target, when that names something: a mention, or a
    name ending in a head word of zh_relation_words.json or an organisation's word."""
    owned = surface.rpartition("的")[2]
    if owned == surface or len(owned) < 2:
        return surface
    owned_start = start + len(surface) - len(owned)
    named = any(m.start == owned_start for m in mentions)
    bare = _ORG_TAIL.fullmatch(owned) or any(owned in h for h in relation_words().heads.values())
    if named or (not bare and (relation_words().head_type(owned) or _ORG_TAIL.search(owned))):
        return owned  # not 学校的合唱团 → 合唱团: a head alone names nothing
    return surface


def _trim_name(name: str) -> str:
    return name[:2] if len(name) == 3 and name[2] in NAME_STOPS else name


def _time_word(text: str) -> bool:
    """Whether jieba reads ``text`` as time words only (昨晚, 刚才, 昨天晚上); not 老 / 小 and a
    family name, which jieba's dictionary may also hold as a time (老周)."""
    if len(text) == 2 and text[0] in "老小阿" and text[1] in surnames():
        return False
    return all(w.flag == "t" for w in jieba.posseg.cut(text, HMM=False))


def _is_name(text: str) -> bool:
    """Not a phrase: 开了, 住着 hold characters no name holds."""
    return not _NOT_IN_NAMES.search(text)

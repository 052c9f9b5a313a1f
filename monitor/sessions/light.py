"""Words that only say how a thing is asked, in the forms the stop-words package's lists
lack, per language: read by ``words`` as stop words (a question's content words leave them
out), so a question asked again in another form of them keeps its words.

Each list is a class of such words, not phrases from a labelled set; where a language's
list already holds some of a class's forms (Spanish "posible", Polish "zrobić", Portuguese
"fazer"), the others are the forms missing from it:

* "to do", as a question asks what to do ("co mam zrobić" / "co robić", "come si fa"; not
  Portuguese "faço", which also makes a thing: "como faço um pix" / "como cancelo um pix");
* "possible", as a question asks whether a thing can be done ("kann ich …" / "… möglich?",
  "bırakabilir miyim" / "bırakmak mümkün mü", "연장할 수 있나요" / "연장 가능한가요", Polish
  "da" of "da się");
* a letter's salutation and the words it asks with ("Madame, Monsieur, je souhaiterais
  savoir si …", "Geachte heer/mevrouw", "お世話になっております"), and those that ask again
  politely ("je me permets de reposer ma question", "重ねての質問で恐縮ですが"); not the
  times of day of a greeting ("good morning"), which also name a slot asked about;
* thanks, as English, French and Swedish list them already ("danke", "gracias", "감사합니다",
  "谢谢"): thanks said again before a new question do not make it the earlier turn asked
  again ("네 감사합니다!" / "감사합니다~ 그럼 주차는 무료인가요?");
* the words that ask typed short in chat, as users type them ("cmt" for "comment", "cm"
  for "come", "pq" for "porque"/"por que", "vc" for "você"), which the lists hold written out;
  not one that is a word of another language's list (German "ne" for "eine" is Turkish
  "ne", and would tell a Turkish turn German) nor a thing's name (Portuguese "pro" for
  "para o" is also the Pro plan: "o plano pro inclui suporte?" / "o plano básico …");
* English's auxiliaries negated, with and without the apostrophe ("won't", "doesnt"): the
  auxiliaries and "not" are stop words already, each alone.
"""

from __future__ import annotations

from typing import Final

_DO: Final = {
    "de": "mache macht tue tut tun",
    "nl": "doe doet",
    "pl": "robić robię robi robimy zrobię zrobi zrobimy",
    "pt": "fazemos fazendo",
    "it": "fa",
    "tr": "yaparım yapayım yapmalıyım yapmam",
}
_POSSIBLE: Final = {
    "de": "möglich",
    "fr": "possible",
    "it": "possibile",
    "ko": "가능",
    "ja": "可能",
    "nl": "mogelijk",
    "pl": "da",
    "pt": "possível",
    "tr": "mümkün",
}
_FORMAL: Final = {
    "en": "dear sir madam whether apologies apologise apologize myself regards wondering",
    "fr": "madame monsieur messieurs souhaiterais souhaite permets reposer cordialement",
    "de": "geehrte geehrter damen herren grüße freundlichen",
    "es": "estimados estimado señores saludos cordiales quisiera",
    "it": "gentili gentile vorrei cordiali saluti",
    "pt": "prezados prezado senhores gostaria atenciosamente",
    "nl": "geachte heer mevrouw verneem willen vriendelijke groet",
    "pl": "szanowni szanowny państwo uprzejmie chciałbym chciałabym",
    "sv": "vänliga hälsningar undrar vilja",
    "tr": "günler saygılarımla öğrenmek",
    "ko": "안녕하십니까 문의드립니다",
    "ja": "お世話 恐縮 重ねて",
}
_THANKS: Final = {
    "en": "thank thx thanx ty",
    "de": "danke dank",
    "es": "gracias",
    "it": "grazie",
    "pt": "obrigado obrigada obg",
    "nl": "bedankt dank dankjewel dankuwel",
    "pl": "dzięki dziękuję",
    "tr": "teşekkürler teşekkür sağol",
    "ko": "감사합니다 감사해요 고맙습니다 고마워요",
    "ja": "ありがとうございます ありがとう",
    "zh": "谢谢 感谢 多谢",
}
_CHAT: Final = {
    "en": "u ur abt bc cuz wat hw",
    "fr": "cmt cmnt pk pq pkoi koi ct tt qd qnd",
    "it": "cm cmq xké xche xchè nn qnd qlc",
    "es": "q xq pq porq tb tmb",
    "pt": "pq q vc vcs tb tbm cmo oq qdo qnd mto mt",
    "de": "nich",
    "nl": "ff wnr mn",
    "pl": "cz nwm wgl",
    "tr": "nasi nbr",
    "sv": "va mkt",
}
_AUXILIARIES: Final = "do does did wo ca is are was were could would should have has"
_NEGATED: Final = {"en": " ".join(f"{x}n't {x}nt" for x in _AUXILIARIES.split())}


def light(code: str) -> frozenset[str]:
    """The words of a language (its code) that only say how a thing is asked, beyond its
    stop-words list."""
    return frozenset(
        w
        for table in (_DO, _POSSIBLE, _FORMAL, _THANKS, _CHAT, _NEGATED)
        for w in table.get(code, "").split()
    )

"""Refusal phrases outside English, per language, with the same care for negatives.

Every pattern is anchored on a speaker ("I", "the documents") or on the information itself
("no information on ...") so that an answer stating a limit in the user's language ("no hay
comisión", "es gibt keine Gebühr", "手数料はかかりません") is not a refusal. Each language also
has a compositional rule (``absence_pattern``). A language's patterns run only when one of
its cue words occurs in the answer; ``refusal.find_refusal`` finds the cues of every
language in one Aho-Corasick pass (``monitor.checks.cues``).

Languages: Spanish, French, German, Portuguese, Italian, Dutch, Polish, Russian, Turkish,
Arabic, Hindi, Japanese, Chinese (simplified and traditional), Korean.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple


class Language(NamedTuple):
    """A language's refusal patterns and the gate in front of them: the patterns run only when
    the answer contains one of ``words`` (whole words, for languages written with spaces) or
    one of ``cues`` (substrings, for the others). Every match of every pattern contains one;
    a test proves the gate changes no outcome."""

    code: str
    words: frozenset[str]
    cues: tuple[str, ...]
    patterns: tuple[tuple[str, re.Pattern[str]], ...]  # (kind, pattern)
    absence: re.Pattern[str] | None = None  # see ``absence_pattern``
    nouns: tuple[str, ...] = ()  # one of them occurs in every match of ``absence``

    def search(self, text: str, hits: set[str] | None) -> tuple[str, str] | None:
        """(kind, phrase) of the earliest match, or None. ``hits`` are the cues found in the
        answer (``None``: run every pattern, the reference the gates are tested against)."""
        if hits is not None and hits.isdisjoint(self.words) and hits.isdisjoint(self.cues):
            return None
        patterns = list(self.patterns)
        if self.absence is not None and (hits is None or not hits.isdisjoint(self.nouns)):
            patterns.append(("context_lacks", self.absence))
        return earliest(text, patterns)


def earliest(text: str, patterns: Iterable[tuple[str, re.Pattern[str]]]) -> tuple[str, str] | None:
    """(kind, matched phrase) of the match of ``patterns`` that starts first in ``text``."""
    best: re.Match[str] | None = None
    best_kind = ""
    for kind, pattern in patterns:
        m = pattern.search(text)
        if m is not None and (best is None or m.start() < best.start()):
            best, best_kind = m, kind
    return None if best is None else (best_kind, best.group(0).strip())


# Cue words of the languages written with spaces (lower case, as ``\w+`` splits them).
_CUE_WORDS = {
    "es": "no nada ningún ninguna ninguno ningun sin siento disculpa disculpe imposible fuera",
    "fr": "ne n aucun aucune pas rien désolé désolée impossible",
    "de": "nicht kein keine keinen keiner keinerlei keines nichts weiß weiss leider fehlt fehlen",
    "pt": "não nao nenhum nenhuma nada sem desculpe desculpa impossível impossivel",
    "it": "non nessun nessuna nessuno niente senza dispiace spiacente impossibile",
    "nl": "niet geen niets nergens helaas ontbreekt ontbreken",
    "pl": "nie brak żadnych żadnej nic przepraszam niemożliwe",
}


def _lang(code: str, cues: tuple[str, ...], phrases: list[tuple[str, str]]) -> Language:
    compiled = tuple((kind, re.compile(p, re.IGNORECASE)) for kind, p in phrases)
    words = frozenset(_CUE_WORDS.get(code, "").split())
    absent, info, where, extra_cues = _ABSENCE[code]
    return Language(
        code,
        words,
        () if words else (*cues, *extra_cues),
        compiled,
        re.compile(absence_pattern(absent, info, where), re.IGNORECASE),
        tuple(_NOUNS[code].split()),
    )


_CLAUSE = r"[^.!?;。！？；\n]"


def absence_pattern(absent: str, info: str, where: str) -> str:
    """An absence predicate ("is not mentioned", "no consta", "未提供") in the same clause as
    an information noun ("the information", "la respuesta") or a place in the sources ("in the
    documents", "资料中"): the compositional form of "the sources do not say", which the
    fixed phrases above cannot enumerate. A bare absence ("shipping is not available") names
    neither and stays an answer."""
    near = rf"(?:{info}|{where})"
    return rf"{near}{_CLAUSE}{{0,50}}?(?:{absent})|(?:{absent}){_CLAUSE}{{0,50}}?{near}"


# Substrings of the information nouns and source places below: the absence pattern of a
# language runs only when the answer contains one (its gate).
_NOUNS = {
    "es": "informaci dato detalle respuesta menci referencia contexto documento fuente texto "
    "fragmento pasaje material conocimiento",
    "fr": "information réponse mention précision détail contexte document source texte passage "
    "extrait connaissance",
    "de": "information angabe antwort hinweis detail erwähnung kontext dokument quelle unterlage "
    "text passage wissensdatenbank",
    "pt": "informa resposta men refer dado detalhe contexto documento fonte texto trecho materia "
    "conhecimento",
    "it": "informazion rispost menzion dettagli riferiment dati contesto document fonti test "
    "passaggi estratti material",
    "nl": "informatie gegevens details antwoord vermelding context document bron tekst passage "
    "kennisbank",
    "pl": "informacj danych szczegół odpowied wzmian kontek dokument źród tekst fragment materia "
    "bazie",
    "ru": "информац сведени данны ответ упоминан контекст документ источник текст фрагмент "
    "материал базе",
    "tr": "bilgi veri cevap yanıt ayrıntı detay bağlam belge kaynak metin doküman döküman",
    "ar": "معلوم إجابة بيانات تفاصيل ذكر السياق المستندات الوثائق المصادر النص المواد المعرفة",
    "hi": "जानकारी उत्तर जवाब विवरण उल्लेख ज़िक्र जिक्र संदर्भ दस्तावेज स्रोत पाठ सामग्री",
    "ja": "情報 記載 言及 回答 答え 内容 詳細 データ 資料 文書 ドキュメント コンテキスト 文脈 参照 参考 ナレッジ",
    "zh": "信息 资讯 資訊 资料 資料 数据 數據 内容 內容 答案 说明 說明 记载 記載 上下文 文档 文檔 文件 材料 "
    "来源 來源 知识库 知識庫",
    "ko": "정보 내용 자료 언급 답변 기재 설명 데이터 문서 컨텍스트 맥락 문맥 출처 지식",
}

# code -> (absence predicates, information nouns, places in the sources, extra gate cues)
_ABSENCE: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "es": (
        r"\bno (?:se )?(?:menciona|mencionan|especifica|especifican|indica|indican|detalla|aparece"
        r"|aparecen|figura|figuran|consta|constan|incluye|incluyen|contiene|contienen|recoge|recogen"
        r"|proporciona|proporcionan|encuentra|encuentran|dice|dicen|trata|tratan|aborda|abordan"
        r"|cubre|cubren|hace referencia|ha(?:n)? (?:encontrado|mencionado|especificado|proporcionado))\b"
        r"|\bno (?:está|están|estaba) (?:mencionad|especificad|incluid|disponib|recogid|indicad)\w*"
        r"|\bno (?:hay|existe|tengo|dispongo|encontr[ée]|veo)\b|\bningun[ao]?\b|\bnada\b"
        r"|\b(?:queda|est[aá]|cae) fuera de\b",
        r"\b(?:la|esa|esta|dicha|tal|ninguna|m[aá]s) (?:informaci[oó]n|respuesta|menci[oó]n|referencia)\b"
        r"|\b(?:informaci[oó]n|datos|detalles) (?:sobre|acerca|de|al respecto|relevante|solicitad)",
        r"\b(?:en|dentro de) (?:el|los|la|las|este|estos|esta|estas) (?:\w+ )?(?:contexto|documentos?"
        r"|documentaci[oó]n|fuentes?|textos?|fragmentos|pasajes|materiales?|base de conocimientos?)\b",
        ("ningun", "nada", "no "),
    ),
    "fr": (
        r"\bn'(?:est|sont|a|ont|apparaît|apparaissent|y a|existe|figure|figurent)\b"
        r"|\bne (?:mentionne|mentionnent|précise|précisent|contient|contiennent|figure|figurent"
        r"|comporte|comportent|fournit|fournissent|donne|donnent|traite|traitent|parle|parlent"
        r"|dit|disent|trouve|vois|dispose|sont|se trouve|fait|font)\b|\baucune?\b|\brien\b"
        r"|\bpas (?:mentionnée?s?|précisée?s?|indiquée?s?|disponibles?|fournie?s?)"
        r"|\bne pas (?:avoir|disposer|connaître|trouver|pouvoir)\b",
        r"\b(?:l'|cette |ces |aucune |d')(?:informations?|réponse|mention|précision|détails?)\b",
        r"\bdans (?:le|les|la|ce|ces) (?:\w+ )?(?:contexte|documents?|sources?|textes?|passages?"
        r"|extraits?|base de connaissances|documentation)\b",
        ("rien", "aucun", "n'"),
    ),
    "de": (
        r"\bnicht (?:erwähnt|genannt|enthalten|angegeben|aufgeführt|beschrieben|vorhanden|verfügbar"
        r"|zu finden|auffindbar|ersichtlich|angeführt|behandelt|dokumentiert|thematisiert)\b"
        r"|\b(?:keine|keinerlei|nichts)\b|\bfehl(?:t|en)\b",
        r"\b(?:die|diese|dazu|hierzu|keine|keinerlei) (?:informationen?|angaben?|antwort|hinweise?"
        r"|details?|erwähnung)\b|\b(?:informationen|angaben|hinweise) (?:zu|über|dazu|darüber)\b",
        r"\b(?:im|in den|in der|in dem|aus den|aus dem) (?:\w+ )?(?:kontext|dokumenten|dokument"
        r"|quellen|unterlagen|texten?|passagen|informationen|wissensdatenbank|dokumentation)\b",
        ("nichts", "kein", "fehl", "nicht "),
    ),
    "pt": (
        r"\bn[ãa]o (?:[ée] |s[ãa]o |foi |foram |est[áa] |est[ãa]o )?(?:mencionad|especificad|informad"
        r"|indicad|citad|fornecid|inclu[ií]d|dispon[ií]ve|abordad|detalhad|encontrad)\w*"
        r"|\bn[ãa]o (?:consta|constam|aparece|aparecem|figura|menciona|mencionam|cont[ée]m|inclui"
        r"|incluem|traz|trazem|h[áa]|existe|tenho|encontrei)\b|\bnenhuma?\b|\bnada\b"
        r"|\bn[ãa]o (?:consegui|pude|consigo|posso) (?:\w+ )?(?:encontrar|localizar|achar|identificar)\b",
        r"\b(?:a|essa|esta|tal|nenhuma|mais) (?:informa[çc][ãa]o|resposta|men[çc][ãa]o|refer[êe]ncia)\b"
        r"|\b(?:informa[çc](?:ão|ões)|dados|detalhes) (?:sobre|acerca|a respeito|relevantes?|solicitad)",
        r"\b(?:n[oa]s?|dentro d[oa]s?) (?:\w+ )?(?:contexto|documentos?|documenta[çc][ãa]o|fontes?"
        r"|textos?|trechos|materiais|base de conhecimento)\b",
        ("nenhum", "nada", "não", "nao "),
    ),
    "it": (
        r"\bnon (?:è |sono |viene |vengono |è stat[ao] )?(?:menzionat|specificat|indicat|riportat"
        r"|citat|fornit|inclus|disponibil|trattat|presente|present)\w*"
        r"|\bnon (?:compare|compaiono|figura|figurano|appare|appaiono|contiene|contengono|include"
        r"|includono|riporta|riportano|c'è|ci sono|ho|trovo|esiste)\b|\bnessun[ao]?\b|\bniente\b",
        r"\b(?:l'|questa |tale |quest'|nessuna |ulteriori )(?:informazion[ei]|risposta|menzione|dettagli"
        r"|riferimento)\b|\b(?:informazioni|dati|dettagli) (?:su|sul|sulla|riguardo|in merito|relativ)",
        r"\b(?:nel|nei|nella|nelle|negli|all'interno de(?:l|i|lla|lle|gli)) (?:\w+ )?(?:contesto"
        r"|documenti|documento|fonti|testi?|passaggi|estratti|materiali|documentazione)\b",
        ("nessun", "niente", "non "),
    ),
    "nl": (
        r"\bniet (?:vermeld|genoemd|opgenomen|beschreven|vermeld|aangegeven|beschikbaar|te vinden"
        r"|gespecificeerd|behandeld)\b|\b(?:geen|niets|nergens)\b|\bontbreekt\b|\bontbreken\b",
        r"\b(?:de|deze|die|geen|meer) (?:informatie|gegevens|details|antwoord|vermelding)\b"
        r"|\b(?:informatie|gegevens) (?:over|hierover|daarover)\b",
        r"\bin (?:de|het|deze|die) (?:\w+ )?(?:context|documenten|document|bronnen|bron|tekst"
        r"|teksten|passages|kennisbank|documentatie)\b",
        ("geen", "niets", "nergens", "ontbre", "niet "),
    ),
    "pl": (
        r"\bnie (?:ma|zawiera|zawierają|wspomina|wspominają|podano|podaje|podają|wspomniano"
        r"|określono|znaleziono|znalazłem|znalazłam|posiadam|mam|pojawia|występuje)\b"
        r"|\b(?:brak|żadnych|żadnej|nic)\b",
        r"\b(?:informacj\w*|danych|szczegółów|odpowiedzi|wzmian\w*)\b",
        r"\bw (?:\w+ )?(?:kontekście|dokumentach|dokumencie|źródłach|tekście|fragmentach|materiałach"
        r"|bazie wiedzy|dokumentacji)\b",
        ("brak", "żadn", "nic", "nie "),
    ),
    "ru": (
        r"\bне (?:упоминается|упоминаются|указан\w*|содержится|содержатся|приводится|приводятся"
        r"|говорится|описан\w*|представлен\w*|найден\w*|удалось найти|нашёл|нашел|нашла|вижу)\b"
        r"|\b(?:нет|отсутству\w*|никаких|ничего)\b",
        r"\b(?:информаци\w*|сведени\w*|данны\w*|ответ\w*|упоминани\w*)\b",
        r"\bв (?:\w+ )?(?:контексте|документах|документе|источниках|тексте|фрагментах|материалах"
        r"|базе знаний|документации)\b",
        ("нет", "отсутств", "никаких", "ничего", "не "),
    ),
    "tr": (
        r"(?:yer almıyor|yer almamaktadır|belirtilmemiş|belirtilmiyor|bahsedilmiyor|bahsedilmemiş"
        r"|geçmiyor|bulunmuyor|bulunmamaktadır|bulunamadı|yok|mevcut değil|içermiyor|verilmemiş)",
        r"\b(?:bilgi\w*|veri\w*|cevap\w*|yanıt\w*|ayrıntı\w*|detay\w*)",
        r"\b(?:bağlam|belge|kaynak|metin|doküman|döküman|dokümantasyon)\w*(?:de|da|te|ta)\b",
        (
            "yer alm",
            "belirtilm",
            "bahsedilm",
            "geçmiyor",
            "bulunm",
            "bulunam",
            "mevcut değil",
            "verilmem",
        ),
    ),
    "ar": (
        r"(?:غير (?:مذكور|مذكورة|متوفر|متوفرة|متاح|متاحة|موجود|موجودة|محدد|محددة|واردة|وارد)"
        r"|لا (?:يوجد|توجد|يتوفر|تتوفر|يذكر|تذكر|يرد|ترد|تحتوي|يحتوي|تتضمن|يتضمن)"
        r"|لم (?:يتم|يرد|يذكر|تذكر|أجد|أعثر)|لا شيء)",
        r"(?:المعلومات|المعلومة|معلومات|الإجابة|إجابة|البيانات|تفاصيل|ذكر)",
        r"(?:(?:في|ضمن) )?(?:السياق|المستندات|الوثائق|المصادر|النص|النصوص|المواد|قاعدة المعرفة)",
        ("غير", "لا ", "لم ", "لا شيء"),
    ),
    "hi": (
        r"(?:नहीं (?:है|हैं|था|थी|मिला|मिली|मिल सका|मिल सकी|दिया गया|दी गई|बताया गया)|उपलब्ध नहीं"
        r"|उल्लेख नहीं|ज़िक्र नहीं|जिक्र नहीं|कुछ नहीं|कोई जानकारी नहीं)",
        r"(?:जानकारी|उत्तर|जवाब|विवरण|उल्लेख|ज़िक्र|जिक्र)",
        r"(?:संदर्भ|दस्तावेज़ों|दस्तावेजों|दस्तावेज़|दस्तावेज|स्रोतों|स्रोत|पाठ|सामग्री)(?: में| मे)",
        (),
    ),
    "ja": (
        r"(?:記載|言及|記述|情報|説明)(?:が|は|も)?(?:ありません|ございません|見当たりません|ない|されていません"
        r"|されておりません)|(?:含まれていません|含まれておりません|提供されていません|見つかりません"
        r"|見つかりませんでした|載っていません|書かれていません|触れられていません)",
        r"(?:情報|記載|言及|回答|答え|内容|詳細|データ)",
        r"(?:資料|文書|ドキュメント|コンテキスト|文脈|提供された情報|参照情報|参考情報|ナレッジベース)"
        r"(?:には|では|に|で|の中に|の中では)",
        ("ません", "ない", "おりません"),
    ),
    "zh": (
        r"(?:未(?:提供|提及|提到|说明|說明|包含|涉及|记载|記載|找到)|没有|沒有|并无|並無|无|無|找不到|查不到"
        r"|不包含|不包括)",
        r"(?:信息|资讯|資訊|资料|資料|数据|數據|内容|內容|答案|说明|說明|记载|記載)",
        r"(?:上下文|文档|文檔|文件|资料|資料|材料|来源|來源|知识库|知識庫)(?:中|里|裡|内|內)",
        ("找不到", "查不到", "并无", "並無"),
    ),
    "ko": (
        r"(?:없습니다|없어요|없음|찾을 수 없|찾지 못|확인되지 않|확인할 수 없|포함되어 있지 않|나와 있지 않"
        r"|언급되어 있지 않|언급되지 않|기재되어 있지 않|제공되지 않|담겨 있지 않)",
        r"(?:정보|내용|자료|언급|답변|기재|설명|데이터)",
        r"(?:문서|컨텍스트|맥락|문맥|자료|출처|제공된 정보|지식 베이스)(?:에는|에서는|에|에서)",
        (),
    ),
}


_ES_INFO = r"(?:informaci[oó]n|datos|detalles|respuesta|menci[oó]n|referencia)"
_ES_SOURCE = (
    r"(?:el contexto|los documentos|el documento|las fuentes|la fuente|el texto|los textos|"
    r"los fragmentos|los pasajes|la informaci[oó]n (?:proporcionada|disponible|facilitada))"
)
_FR_SOURCE = (
    r"(?:le contexte|les documents?|le document|les sources?|la source|le texte|les passages?|"
    r"les extraits?|les informations (?:fournies|disponibles))"
)
_DE_SOURCE = (
    r"(?:der kontext|die dokumente|das dokument|die quellen|die quelle|der text|die texte|"
    r"die unterlagen|die passagen|die (?:bereitgestellten|vorliegenden|verfügbaren) "
    r"(?:informationen|dokumente|unterlagen))"
)
_PT_SOURCE = (
    r"(?:o contexto|os documentos|o documento|as fontes|a fonte|o texto|os textos|os trechos|"
    r"as informa[çc][õo]es (?:fornecidas|dispon[ií]veis))"
)
_IT_SOURCE = (
    r"(?:il contesto|i documenti|il documento|le fonti|la fonte|il testo|i testi|i passaggi|"
    r"gli estratti|le informazioni (?:fornite|disponibili))"
)
_NL_SOURCE = (
    r"(?:de context|de documenten|het document|de bronnen|de bron|de tekst|de teksten|"
    r"de passages|de (?:verstrekte|beschikbare|gegeven) informatie)"
)
_PL_SOURCE = (
    r"(?:kontekst|dokumenty|dokument|źródła|źródło|tekst|teksty|fragmenty|"
    r"(?:dostarczone|podane|dostępne) (?:informacje|dokumenty|materiały))"
)
_RU_SOURCE = (
    r"(?:контекст|документы|документ|источники|источник|текст|тексты|фрагменты|"
    r"предоставленн\w+ (?:информаци\w+|документ\w*|материал\w*|контекст\w*))"
)

LANGUAGES: tuple[Language, ...] = (
    _lang(
        "es",
        ("no ", "lo siento", "disculp", "ningun"),
        [
            ("no_knowledge", r"\bno (?:lo )?sé\b|\bno estoy segur[oa]\b"),
            (
                "no_knowledge",
                rf"\bno (?:tengo|dispongo de|cuento con|encuentro|encontr[ée]|he encontrado|veo|"
                rf"pude encontrar|he podido encontrar|puedo encontrar|logr[ée] encontrar|hall[ée])"
                rf"(?: \w+){{0,3}} {_ES_INFO}",
            ),
            (
                "context_lacks",
                rf"\b{_ES_SOURCE}(?: \w+){{0,2}} no (?:menciona|contiene|incluye|especifica|"
                r"indica|proporciona|dice|aborda|trata|ofrece|detalla|habla|recoge|cubre)n?\b",
            ),
            (
                "context_lacks",
                r"\bno (?:se (?:menciona|especifica|indica|encuentra|proporciona|incluye|detalla|"
                r"aborda)|aparece|figura)\b.{0,60}\b(?:en|dentro de) (?:el|los|la|las) "
                r"(?:contexto|documentos?|fuentes?|textos?|informaci[oó]n|fragmentos)",
            ),
            (
                "context_lacks",
                rf"\b(?:no hay|no existe|sin) (?:suficiente |ninguna |m[aá]s )?{_ES_INFO}\b"
                rf"|\bninguna {_ES_INFO}\b",
            ),
            (
                "cannot_help",
                r"\bno (?:puedo|podr[ií]a|es posible|me es posible|soy capaz de|estoy en condiciones de)"
                r" (?:\w+ ){0,2}(?:responder|ayudar\w*|determinar|confirmar|proporcionar|dar|decir|"
                r"precisar|indicar|ofrecer)",
            ),
            ("cannot_help", r"\b(?:lo siento|disculp[ae]),? (?:pero )?(?:no|ning[uú]n)"),
            (
                "cannot_help",
                r"\b(?:no es posible|es imposible|no se puede|no puede) (?:\w+ )?(?:responder|determinar|"
                r"saber|confirmar|precisar|contestar)",
            ),
        ],
    ),
    _lang(
        "fr",
        ("ne ", "n'", "aucun", "pas d", "désolé", "desole", "impossible", "pas possible"),
        [
            (
                "no_knowledge",
                r"\bje ne (?:le )?(?:sais|connais) pas\b|\bje ne suis pas (?:sûr|certain)",
            ),
            (
                "no_knowledge",
                r"\bje n'(?:ai|arrive|trouve|dispose)\b(?: \w+){0,3} (?:pas|aucune?|trouver|"
                r"d'informations?|d'information|de (?:réponse|détails?|données))"
                r"|\bje ne (?:trouve|vois|dispose|possède)\b(?: \w+){0,3} (?:pas|aucune?)",
            ),
            (
                "context_lacks",
                rf"\b{_FR_SOURCE}(?: \w+){{0,2}} ne (?:mentionnen?t?|contiennent|contient|précisen?t?|"
                r"indiquen?t?|fournissent|fournit|donnen?t?|abordent?|traitent?|parlent?|disent|dit|"
                r"comporten?t?|inclu(?:en)?t|font|fait|couvren?t?|précise)\b",
            ),
            (
                "context_lacks",
                r"\b(?:n'est|ne sont|n'a été|n'ont été) pas (?:\w+ )?(?:mentionnée?s?|précisée?s?|"
                r"indiquée?s?|disponibles?|fournie?s?|abordée?s?|traitée?s?|couverte?s?|spécifiée?s?)"
                r" dans (?:le|les|la|ces) (?:contexte|documents?|sources?|textes?|informations|passages?)",
            ),
            (
                "context_lacks",
                r"\b(?:aucune |pas d'|pas de |peu d')(?:\w+ )?(?:informations?|données|détails?|"
                r"mention|réponse)\b(?! (?:supplémentaire|nécessaire) (?:n'est|ne sont) requis)",
            ),
            (
                "cannot_help",
                r"\bje ne (?:peux|pourrai|suis pas en mesure d[e'])(?: pas)?(?: \w+){0,2} "
                r"(?:pas )?(?:répondre|aider|vous aider|déterminer|confirmer|fournir|donner|dire|préciser)",
            ),
            ("cannot_help", r"\bdésolée?,? (?:mais )?(?:je ne|je n'|il n'y a|aucun)"),
            (
                "cannot_help",
                r"\b(?:impossible|pas possible|je ne peux pas|on ne peut pas|ne permet(?:tent)? pas) "
                r"(?:\w+ )?(?:de |d')?(?:répondre|déterminer|savoir|confirmer|préciser|dire)",
            ),
        ],
    ),
    _lang(
        "de",
        ("nicht", "kein", "weiß", "weiss", "leider"),
        [
            (
                "no_knowledge",
                r"\bich (?:weiß|weiss) (?:es |das )?(?:leider )?nicht\b|\bich bin mir nicht sicher\b",
            ),
            (
                "no_knowledge",
                r"\b(?:(?:dazu|hierzu|darüber|mir) liegen (?:mir |uns )?(?:leider )?keine|"
                r"ich (?:habe|hatte|besitze|finde|fand|konnte|kann)(?: \w+){0,3} keine)"
                r" (?:\w+ )?(?:informationen|angaben|daten|hinweise|details|antwort)",
            ),
            (
                "no_knowledge",
                r"\bich (?:konnte|kann)(?: \w+){0,4} nicht (?:finden|herausfinden|ermitteln|bestimmen|beantworten|sagen)",
            ),
            (
                "context_lacks",
                rf"\b{_DE_SOURCE}(?: \w+){{0,2}} (?:enthält|enthalten|erwähnt|erwähnen|nennt|nennen|gibt|"
                r"geben|beantwortet|beantworten|liefert|liefern|beschreibt|beschreiben|macht|machen)"
                r"(?: \w+){0,3} (?:keine|nicht|kein)\b",
            ),
            (
                "context_lacks",
                r"\b(?:wird|werden|ist|sind)(?: \w+){0,3} nicht (?:im|in den|in der) "
                r"(?:kontext|dokumenten|quellen|unterlagen|texten?|informationen)"
                r"|\bnicht (?:im|in den|in der) (?:bereitgestellten |vorliegenden )?"
                r"(?:kontext|dokumenten|quellen|unterlagen|texten?)(?: \w+){0,2} "
                r"(?:erwähnt|genannt|enthalten|angegeben|beschrieben|aufgeführt)"
                r"|\b(?:im|in den|in der) (?:\w+ )?(?:kontext|dokumenten|quellen|unterlagen|texten?|"
                r"informationen) (?:\w+ ){0,2}nicht (?:erwähnt|genannt|enthalten|angegeben|"
                r"beschrieben|aufgeführt)",
            ),
            (
                "context_lacks",
                r"\bkeine (?:weiteren |genauen |näheren )?(?:informationen|angaben|hinweise|daten) "
                r"(?:zu|über|dazu|darüber|hierzu|vorhanden|gefunden|enthalten|verfügbar)",
            ),
            (
                "cannot_help",
                r"\b(?:ich kann|kann ich)(?: \w+){0,4} (?:nicht|keine) (?:helfen|beantworten|"
                r"sagen|bestätigen|angeben|auskunft)|\bleider (?:kann|habe|weiß|weiss) ich",
            ),
            (
                "cannot_help",
                r"\b(?:lässt sich|kann|können|ist)(?: \w+){0,5} nicht (?:beantworten|beantwortet|"
                r"bestimmen|bestimmt|sagen|feststellen|festgestellt|ermitteln|ermittelt)"
                r"|\bnicht (?:zu |möglich,? )?(?:beantworten|bestimmen|ermitteln)\b",
            ),
            (
                "no_knowledge",
                r"\b(?:finde|fand|sehe|habe) ich(?: \w+){0,4} (?:nichts|keine (?:angaben|informationen|"
                r"hinweise))|\b(?:hierzu|dazu|darüber) (?:habe|finde|sehe) ich (?:\w+ )?(?:keine|nichts)",
            ),
        ],
    ),
    _lang(
        "pt",
        ("não", "nao ", "desculp", "nenhum"),
        [
            ("no_knowledge", r"\bn[ãa]o (?:sei|tenho certeza)\b"),
            (
                "no_knowledge",
                r"\bn[ãa]o (?:encontrei|achei|localizei|consegui (?:encontrar|achar)) nada\b",
            ),
            (
                "no_knowledge",
                r"\bn[ãa]o (?:tenho|disponho de|encontrei|consegui encontrar|foi poss[ií]vel encontrar|"
                r"encontro|vejo)(?: \w+){0,3} (?:informa[çc](?:ão|ões)|dados|detalhes|resposta|men[çc][ãa]o)",
            ),
            (
                "context_lacks",
                rf"\b{_PT_SOURCE}(?: \w+){{0,2}} n[ãa]o (?:menciona|cont[eé]m|inclui|especifica|"
                r"informa|fornece|diz|aborda|trata|indica|detalha|traz|cobre)m?\b",
            ),
            (
                "context_lacks",
                r"\bn[ãa]o (?:é|foi|est[áa]|s[ãa]o|foram) (?:mencionad|especificad|informad|"
                r"dispon[ií]ve|indicad|abordad)\w* n(?:o|os|a|as) (?:contexto|documentos?|fontes?|"
                r"textos?|informa[çc][õo]es|trechos)",
            ),
            (
                "context_lacks",
                r"\b(?:n[ãa]o (?:h[áa]|existe|existem)|sem|nenhuma) (?:\w+ )?(?:informa[çc](?:ão|ões)|"
                r"dados|detalhes|men[çc][ãa]o)\b",
            ),
            (
                "cannot_help",
                r"\bn[ãa]o (?:posso|consigo|sou capaz de|[ée] poss[ií]vel)(?: \w+){0,2} (?:responder|"
                r"ajudar|ajud[áa]-l[oa]|confirmar|determinar|fornecer|dizer|informar)",
            ),
            ("cannot_help", r"\bdesculpe?,? (?:mas )?n[ãa]o"),
            (
                "cannot_help",
                r"\b(?:n[ãa]o [ée] poss[ií]vel|[ée] imposs[ií]vel|n[ãa]o se pode|n[ãa]o d[áa] para) "
                r"(?:\w+ )?(?:responder|determinar|saber|confirmar|afirmar|dizer)",
            ),
        ],
    ),
    _lang(
        "it",
        ("non ", "nessun", "dispiace", "spiacente"),
        [
            ("no_knowledge", r"\bnon (?:lo )?so\b|\bnon sono sicur[oa]\b"),
            (
                "no_knowledge",
                r"\bnon ho (?:modo|la possibilità|elementi) (?:di|per) (?:saper|rispond|determin|verific|stabil)",
            ),
            (
                "no_knowledge",
                r"\bnon (?:ho|dispongo di|trovo|ho trovato|sono riuscit[oa] a trovare|riesco a trovare|"
                r"vedo)(?: \w+){0,3} (?:informazioni|dati|dettagli|riferimenti|risposta|menzione)",
            ),
            (
                "context_lacks",
                rf"\b{_IT_SOURCE}(?: \w+){{0,2}} non (?:menziona|menzionano|contiene|contengono|"
                r"specifica|specificano|indica|indicano|fornisce|forniscono|dice|dicono|include|"
                r"includono|riporta|riportano|tratta|trattano|parla|parlano)\b",
            ),
            (
                "context_lacks",
                r"\bnon (?:è|viene|sono|vengono|è stat[oa]) (?:menzionat|specificat|indicat|riportat|"
                r"disponibil|trattat)\w* (?:nel|nei|nelle|nella|negli) (?:contesto|documenti|fonti|"
                r"testi?|informazioni|passaggi)",
            ),
            (
                "context_lacks",
                r"\b(?:non (?:ci sono|c'è|vi sono|esistono)|nessuna|senza) (?:\w+ )?(?:informazion[ei]|"
                r"dati|dettagli|menzione|riferimento)\b",
            ),
            (
                "cannot_help",
                r"\bnon (?:posso|sono in grado di|riesco a)(?: \w+){0,2} (?:rispondere|aiutar\w*|"
                r"determinare|confermare|fornire|dire|indicare)",
            ),
            ("cannot_help", r"\b(?:mi dispiace|spiacente),? (?:ma )?non"),
            (
                "cannot_help",
                r"\b(?:non è possibile|è impossibile|non si può|non posso|non riesco a) (?:\w+ )?"
                r"(?:rispondere|determinare|sapere|confermare|stabilire|dire)",
            ),
        ],
    ),
    _lang(
        "nl",
        ("niet", "geen", "helaas"),
        [
            (
                "no_knowledge",
                r"\bik weet (?:het |dat )?(?:helaas )?niet\b|\bik ben (?:er )?niet zeker",
            ),
            ("cannot_help", r"\bgeen uitspraak (?:doen|over)\b"),
            (
                "no_knowledge",
                r"\bik (?:heb|vond|kan|kon|vind)(?: \w+){0,3} (?:geen (?:\w+ )?(?:informatie|gegevens|"
                r"details|antwoord|vermelding)|niet (?:vinden|helpen|beantwoorden|bepalen|zeggen)|"
                r"niets (?:vinden|gevonden))",
            ),
            (
                "context_lacks",
                rf"\b{_NL_SOURCE}(?: \w+){{0,2}} (?:bevat|bevatten|vermeldt|vermelden|noemt|noemen|geeft|"
                r"geven|beschrijft|beschrijven|zegt|zeggen)(?: \w+){0,2} (?:geen|niet|niets)\b",
            ),
            (
                "context_lacks",
                r"\b(?:staat|wordt|worden|is|zijn)(?: \w+){0,3} niet (?:vermeld|genoemd|beschreven|"
                r"opgenomen|te vinden) in (?:de|het|deze) (?:\w+ )?(?:context|documenten|document|bronnen|tekst|"
                r"informatie)|\bgeen (?:\w+ )?informatie (?:over|gevonden|beschikbaar|in|hierover)",
            ),
            (
                "cannot_help",
                r"\bhelaas,? (?:kan|heb|weet|vond) ik\b|\bik kan (?:u|je) (?:\w+ ){0,3}niet",
            ),
            (
                "cannot_help",
                r"\b(?:kan ik|kunnen we|is het)(?: \w+){0,4} niet (?:beantwoorden|bepalen|zeggen|"
                r"vaststellen|te beantwoorden|te bepalen)|\bniet (?:mogelijk|te) (?:om )?"
                r"(?:te )?(?:beantwoorden|bepalen|zeggen)",
            ),
            (
                "context_lacks",
                r"\b(?:de|het) (?:\w+ )?(?:context|documenten|document|bronnen|bron|tekst|teksten|"
                r"passages|informatie) (?:bevat|bevatten|vermeldt|vermelden|noemt|noemen)"
                r"(?: \w+){0,3} niet\b",
            ),
        ],
    ),
    _lang(
        "pl",
        ("nie ", "brak", "przeprasz"),
        [
            ("no_knowledge", r"\bnie wiem\b|\bnie jestem pew(?:ien|na)\b"),
            (
                "no_knowledge",
                r"\bnie (?:mam|posiadam|znalaz(?:łe|ła)m|mogę znaleźć|udało mi się znaleźć|widzę)"
                r"(?: \w+){0,3} (?:informacj|danych|szczegół|odpowiedzi|wzmian)\w*",
            ),
            (
                "context_lacks",
                rf"\b{_PL_SOURCE}(?: \w+){{0,2}} nie (?:zawiera|wspomina|podaj|określa|mówi|obejmuj|"
                r"opisuj|wskazuj)\w*",
            ),
            (
                "context_lacks",
                r"\bbrak (?:\w+ )?(?:informacji|danych|szczegółów|wzmianki)\b|\bnie (?:ma|podano|"
                r"wspomniano|znaleziono) (?:\w+ )?(?:informacji|danych|wzmianki|szczegółów)",
            ),
            (
                "cannot_help",
                r"\bnie (?:mogę|jestem w stanie|potrafię)(?: \w+){0,2} (?:odpowiedzieć|pomóc|ustalić|"
                r"potwierdzić|określić|udzielić|podać|powiedzieć)",
            ),
            ("cannot_help", r"\bprzepraszam,? (?:ale )?nie"),
            (
                "cannot_help",
                r"\b(?:nie można|nie da się|nie jest możliwe|niemożliwe jest) (?:\w+ )?"
                r"(?:odpowiedzieć|ustalić|określić|stwierdzić|potwierdzić)",
            ),
        ],
    ),
    _lang(
        "ru",
        ("не ", "нет", "извин", "сожален", "невозможно", "нельзя", "отсутств"),
        [
            ("no_knowledge", r"\bя не (?:знаю|уверен\w*)\b"),
            (
                "no_knowledge",
                r"\bне (?:смог|смогла|сумел|сумела|могу) (?:найти|отыскать|обнаружить)\b",
            ),
            (
                "no_knowledge",
                r"\b(?:у меня нет|я не располагаю|не располагаю|я не наш[её]л|не наш[её]л|не нашла|"
                r"не удалось найти|не могу найти|не вижу)(?: \w+){0,3} (?:информаци|данны|сведени|"
                r"ответ|упоминани)\w*",
            ),
            (
                "context_lacks",
                rf"\b{_RU_SOURCE}(?: \w+){{0,2}} не (?:содерж|упомина|указыва|привод|да[её]т|дают|"
                r"описыва|говор|включа|освеща)\w*",
            ),
            (
                "context_lacks",
                r"\bв (?:контексте|документах|документе|источниках|тексте|предоставленн\w+ \w+)"
                r"(?: \w+){0,2} (?:нет|не (?:упоминается|указано|указан\w*|содержится|приводится|"
                r"говорится|описано))|\bнет (?:\w+ )?(?:информации|данных|сведений)\b",
            ),
            (
                "cannot_help",
                r"\b(?:я )?не (?:могу|в состоянии)(?: \w+){0,2} (?:ответить|помочь|сказать|определить|"
                r"подтвердить|предоставить|уточнить)",
            ),
            ("cannot_help", r"\b(?:к сожалению|извините|простите),? (?:но )?(?:я )?не\b"),
            (
                "cannot_help",
                r"\b(?:невозможно|нельзя|не удаётся|не удается|не получится) (?:\w+ )?"
                r"(?:ответить|определить|сказать|установить|подтвердить)",
            ),
            (
                "context_lacks",
                r"\b(?:ответ|информация|сведения|данные|упоминание)(?: \w+){0,6} отсутству\w*"
                r"|\bотсутству\w* (?:\w+ )?(?:информаци|сведени|данны|упоминани)\w*",
            ),
        ],
    ),
    _lang(
        "tr",
        (
            "bilmiyorum",
            "yok",
            "bulama",
            "bulun",
            "olamı",
            "olamam",
            "vereme",
            "maalesef",
            "üzgünüm",
            "belirtil",
            "içermiyor",
            "geçmiyor",
            "yanıtlayam",
            "cevaplayam",
            "bahsedil",
            "sahip değil",
            "veremiyor",
            "mümkün değil",
            "imkansız",
        ),
        [
            ("no_knowledge", r"\bbilmiyorum\b|\bemin değilim\b"),
            (
                "no_knowledge",
                r"\b(?:bilgi|veri|bilgim|bilgiye|bilgiler|detay|ayrıntı)\w* (?:yok|bulunmuyor|"
                r"bulunamadı|sahip değilim|ulaşamadım|bulamadım)\b|\bbulamadım\b",
            ),
            (
                "context_lacks",
                r"\b(?:bağlam|belge|kaynak|metin|sağlanan bilgi)\w*(?: \w+){0,5} (?:bahsedilmiyor|"
                r"bahsetmiyor|belirtilmemiş|belirtilmiyor|yer almıyor|içermiyor|bulunmuyor|geçmiyor)\b",
            ),
            (
                "cannot_help",
                r"\b(?:yardımcı olamıyorum|yardımcı olamam|cevap veremiyorum|yanıt veremiyorum|"
                r"yanıtlayamıyorum|cevaplayamıyorum|yanıtlayamam|cevaplayamam)\b",
            ),
            (
                "cannot_help",
                r"\b(?:üzgünüm|maalesef),? (?:bu (?:konuda|soruya) )?(?:bilgi|yardımcı|yanıt|cevap)",
            ),
            (
                "cannot_help",
                r"\b(?:yanıtla|cevapla|belirle|söyle)\w* (?:mümkün değil|mümkün olmuyor|imkansız)",
            ),
        ],
    ),
    _lang(
        "ar",
        ("لا", "لم", "ليس", "غير", "عذر", "آسف", "للأسف"),
        [
            ("no_knowledge", r"لا (?:أعرف|أعلم|أدري)|لست متأكد"),
            (
                "no_knowledge",
                r"(?:ليس لدي|ليست لدي|لا (?:تتوفر|يتوفر|توجد|يوجد) (?:لدي|لدينا)?|لم أجد|لم أتمكن من "
                r"(?:العثور على|إيجاد))\s*(?:أي |أية )?(?:معلومات|بيانات|إجابة|تفاصيل|ذكر)",
            ),
            ("no_knowledge", r"لم أتمكن من (?:العثور|إيجاد|تحديد|الوصول)|لم أعثر على"),
            (
                "context_lacks",
                r"(?:السياق|المستندات|الوثائق|المصادر|النص|النصوص|المعلومات المقدمة|المعلومات المتاحة)"
                r"(?:\s+\S+){0,2}\s+لا (?:يذكر|تذكر|يحتوي|تحتوي|يتضمن|تتضمن|يوضح|توضح|يحدد|تحدد|يقدم|تقدم|"
                r"يشير|تشير)",
            ),
            (
                "context_lacks",
                r"(?:غير مذكور|لم يتم ذكر|لم يرد ذكر|لا يوجد ذكر|لا توجد معلومات|لا تتوفر معلومات)",
            ),
            (
                "cannot_help",
                r"(?:لا أستطيع|لا يمكنني|لست قادرا على|لست قادراً على|لا أقدر على)\s*(?:\S+\s+){0,2}"
                r"(?:الإجابة|المساعدة|مساعدتك|تحديد|تقديم|تأكيد|العثور)",
            ),
            ("cannot_help", r"(?:عذرًا|عذراً|عذرا|آسف|للأسف)[،,]?\s*(?:لكن |ولكن )?(?:لا|لم|ليس)"),
            (
                "cannot_help",
                r"(?:لا يمكن|من غير الممكن|يتعذر|يستحيل)\s*(?:\S+\s+){0,1}(?:الإجابة|تحديد|معرفة|تأكيد)",
            ),
        ],
    ),
    _lang(
        "hi",
        ("नहीं",),
        [
            ("no_knowledge", r"(?:मुझे|हमें) (?:नहीं पता|पता नहीं|इसकी जानकारी नहीं|जानकारी नहीं)"),
            (
                "no_knowledge",
                r"(?:कोई |इस बारे में |इसके बारे में |इसकी )?जानकारी (?:नहीं (?:है|मिली|मिल सकी|दी गई)|उपलब्ध नहीं)",
            ),
            (
                "context_lacks",
                r"(?:संदर्भ|दस्तावेज़ों|दस्तावेजों|दस्तावेज़|दस्तावेज|स्रोतों|स्रोत|पाठ|दी गई जानकारी)(?:\s+\S+){0,8}\s+"
                r"(?:कोई )?(?:उल्लेख|जानकारी|ज़िक्र|जिक्र|विवरण) नहीं",
            ),
            ("no_knowledge", r"(?:ढूंढ|ढूँढ|खोज|पता लगा) नहीं (?:पाया|पाई|सका|सकी|पा रहा|पा रही)"),
            (
                "cannot_help",
                r"(?:मैं|हम) (?:\S+ ){0,3}(?:उत्तर|जवाब|मदद|सहायता)(?:\s+\S+){0,2} नहीं (?:दे|कर) "
                r"(?:सकता|सकती|सकते|पाऊंगा|पाऊँगा|पाऊंगी)",
            ),
            (
                "cannot_help",
                r"(?:क्षमा करें|माफ़ कीजिए|माफ कीजिए|खेद है)[,،]?.{0,60}"
                r"(?:जानकारी|उत्तर|जवाब|मदद|सहायता|उल्लेख).{0,20}नहीं",
            ),
            ("cannot_help", r"(?:उत्तर|जवाब) (?:देना|दे पाना) (?:संभव नहीं|मुमकिन नहीं|असंभव)"),
        ],
    ),
    _lang(
        "ja",
        ("ません", "かね", "ない", "存じ"),
        [
            (
                "no_knowledge",
                r"(?:わかりません|分かりません|わかりかねます|分かりかねます|存じません|存じ上げません)",
            ),
            (
                "context_lacks",
                r"(?:情報|記載|言及|データ|回答|該当する(?:内容|情報))(?:が|は|も)?(?:見つかりません|"
                r"見つかりませんでした|見当たりません|ありません|ございません|含まれていません|"
                r"記載されていません|されていません|ないため|ない為|得られませんでした)",
            ),
            (
                "cannot_help",
                r"(?:お答え|回答|お手伝い|ご案内|判断|特定)(?:することが|が|は)?(?:できません|"
                r"いたしかねます|できかねます|致しかねます)",
            ),
            (
                "context_lacks",
                r"(?:文書|ドキュメント|資料|コンテキスト|文脈|提供された情報|参照情報|参考情報)"
                r"(?:には|では|に|で|の中に).{0,20}(?:記載|言及|情報|記述)(?:が|は)?"
                r"(?:ありません|されていません|見当たりません|ない|ございません)",
            ),
            ("cannot_help", r"申し訳(?:ありません|ございません)が.{0,40}(?:ません|かねます)"),
            (
                "cannot_help",
                r"(?:答える|回答する|お答えする|判断する|特定する)(?:こと)?(?:は|が)?(?:できません|できかねます|"
                r"不可能です|困難です)",
            ),
        ],
    ),
    _lang(
        "zh",
        ("不", "无", "無", "没", "沒", "未", "抱歉"),
        [
            ("no_knowledge", r"我(?:也)?(?:不知道|不清楚|不确定|不確定)"),
            (
                "context_lacks",
                r"(?:没有|沒有|未能|无法|無法)(?:找到|查到|获取|獲取|提供)?(?:任何)?(?:相关|相關|有关|有關|具体|具體)?"
                r"(?:的)?(?:信息|资料|資料|资讯|資訊|数据|數據|内容|內容|记载|記載|说明|說明)",
            ),
            (
                "context_lacks",
                r"(?:上下文|文档|文檔|文件|资料|資料|材料|来源|來源|提供的(?:信息|资讯|資訊|内容|內容))"
                r"(?:中|里|裡)?(?:并|並)?(?:没有|沒有|未|不包含|未包含)(?:提及|提到|包含|说明|說明|涉及|相关|相關|"
                r"记载|記載|给出|給出)",
            ),
            ("context_lacks", r"(?:并未|並未|未曾|尚未)(?:提及|提到|说明|說明|涉及)"),
            (
                "context_lacks",
                r"(?:没有|沒有|未能|无法|無法)(?:找到|查到|找到任何)(?:关于|關於|有关|有關).{1,20}?"
                r"(?:信息|资料|資料|资讯|資訊|数据|數據|内容|內容)",
            ),
            (
                "cannot_help",
                r"(?:我)?(?:无法|無法|不能|没法|沒法)(?:回答|确定|確定|判断|判斷|提供|帮助|幫助|协助|協助|确认|確認)",
            ),
            ("cannot_help", r"抱歉.{0,30}(?:无法|無法|没有|沒有|不能|不知道|不包含|未包含|未提及)"),
            (
                "context_lacks",
                r"(?:上下文|文档|文檔|文件|资料|資料|材料|来源|來源|内容|內容)(?:中|里|裡)?"
                r"(?:不包含|未包含|不包括|未包括|没有包含|沒有包含)(?:此|这|這|该|該|相关|相關)?"
                r"(?:信息|资讯|資訊|内容|內容|资料|資料|数据|數據)",
            ),
        ],
    ),
    _lang(
        "ko",
        ("없", "모르", "못", "않", "어렵", "죄송"),
        [
            ("no_knowledge", r"(?:모르겠습니다|모릅니다|알 수 없습니다|알지 못합니다|모르겠어요)"),
            (
                "context_lacks",
                r"(?:정보|내용|자료|언급|답변|관련 정보|데이터)(?:가|이|를|을|은|는|도)? ?(?:없습니다|없어요|"
                r"찾을 수 없습니다|찾지 못했습니다|포함되어 있지 않습니다|나와 있지 않습니다|"
                r"제공되지 않았습니다|확인되지 않습니다|확인할 수 없습니다)",
            ),
            (
                "cannot_help",
                r"(?:답변|도움|확인|안내)(?:을|를)? ?(?:드릴 수 없습니다|드리기 어렵습니다|할 수 없습니다|"
                r"드릴 수가 없습니다)",
            ),
            (
                "context_lacks",
                r"(?:문서|컨텍스트|맥락|자료|제공된 정보|출처)(?:에는|에서는|에|에서).{0,20}"
                r"(?:언급|정보|내용|기재)(?:이|가|은|는)? ?(?:없습니다|되어 있지 않습니다|되지 않습니다|없어요)",
            ),
            (
                "cannot_help",
                r"죄송(?:합니다|하지만|하게도)[,.]?.{0,40}(?:없습니다|어렵습니다|못했습니다|않습니다)",
            ),
            ("cannot_help", r"(?:답할|답변할|대답할|판단할|확인할|알) 수 (?:없습니다|없어요|없음)"),
        ],
    ),
)

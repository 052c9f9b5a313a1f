"""Labelled PII examples: positives per type and look-alikes that must be left alone.

Each entry is (kind, text, secret): ``secret`` is the substring that must disappear for a
positive, or None for a look-alike negative of that kind. Used by the unit tests and by
``bench/pii.py``, which prints recall and precision per type.
"""

from __future__ import annotations

CORPUS: list[tuple[str, str, str | None]] = [
    # --- EMAIL -------------------------------------------------------------------------
    ("EMAIL", "Contact jane.doe@example.com for a refund.", "jane.doe@example.com"),
    ("EMAIL", "Mail support+billing@acme.co.uk today", "support+billing@acme.co.uk"),
    ("EMAIL", "from: J_SMITH99@mail.example.org", "J_SMITH99@mail.example.org"),
    ("EMAIL", "<a.b-c@sub.domain.io>", "a.b-c@sub.domain.io"),
    ("EMAIL", "reply to o'neil@example.ie", "neil@example.ie"),
    ("EMAIL", "Write to x@y.museum please.", "x@y.museum"),
    ("EMAIL", "Our handle is @acme on social media.", None),
    ("EMAIL", "Use the format name at company dot com.", None),
    ("EMAIL", "Version 2.3@latest is tagged.", None),
    ("EMAIL", "The ratio is 3@4 in the spec.", None),
    # --- PHONE -------------------------------------------------------------------------
    ("PHONE", "Call +1 415 555 0132 for help.", "+1 415 555 0132"),
    ("PHONE", "Phone: (555) 123-4567", "(555) 123-4567"),
    ("PHONE", "Dial 1-800-555-0199 anytime.", "1-800-555-0199"),
    ("PHONE", "Reach us at +49 30 12345678.", "+49 30 12345678"),
    ("PHONE", "Mobil: 0171-1234567", "0171-1234567"),
    ("PHONE", "Hotline 555.867.5309", "555.867.5309"),
    ("PHONE", "Tel. +442071838750", "+442071838750"),
    ("PHONE", "Büro 030 1234567", "030 1234567"),
    ("PHONE", "The report was renewed on 2024-03-15.", None),
    ("PHONE", "Order 12345 ships in 3-5 days.", None),
    ("PHONE", "Revenue was 181,674,817 dollars.", None),
    ("PHONE", "Open from 08:00 to 18:00 CET.", None),
    ("PHONE", "Version 10.2.3 fixes it.", None),
    ("PHONE", "Invoice INV-2024-0042 is due.", None),
    ("PHONE", "The price is 1 600 EUR.", None),
    ("PHONE", "Dates: 15/03/2024 and 16.03.2024.", None),
    # --- CARD --------------------------------------------------------------------------
    ("CARD", "Card 4111 1111 1111 1111 was declined.", "4111 1111 1111 1111"),
    ("CARD", "Paid with 5500-0000-0000-0004.", "5500-0000-0000-0004"),
    ("CARD", "Amex 378282246310005 on file", "378282246310005"),
    ("CARD", "card=6011111111111117", "6011111111111117"),
    ("CARD", "Visa 4012888888881881.", "4012888888881881"),
    ("CARD", "Order 4111 1111 1111 1112 is late.", None),  # fails Luhn
    ("CARD", "Tracking 1234567890123456 in transit.", None),  # fails Luhn
    ("CARD", "SKU 9780306406157 (an ISBN-13).", None),  # 13 digits, fails Luhn
    ("CARD", "Account 12345678 is active.", None),  # too short
    # --- IBAN --------------------------------------------------------------------------
    ("IBAN", "IBAN DE89 3704 0044 0532 0130 00, BIC COBADEFFXXX", "DE89 3704 0044 0532 0130 00"),
    ("IBAN", "Transfer to GB82WEST12345698765432.", "GB82WEST12345698765432"),
    ("IBAN", "FR14 2004 1010 0505 0001 3M02 606", "FR14 2004 1010 0505 0001 3M02 606"),
    ("IBAN", "NL91ABNA0417164300 is ours", "NL91ABNA0417164300"),
    ("IBAN", "Reference DE00 1234 5678 9012 3456 78 is invalid.", None),  # bad checksum
    ("IBAN", "Model AB12 CDEF GHIJ KLMN in stock.", None),
    ("IBAN", "Code US12 3456 7890 1234.", None),
    # --- IP ----------------------------------------------------------------------------
    ("IP", "Blocked 192.168.1.20 after 5 attempts.", "192.168.1.20"),
    ("IP", "Origin 8.8.8.8 resolved.", "8.8.8.8"),
    ("IP", "Client 2001:db8::8a2e:370:7334 connected.", "2001:db8::8a2e:370:7334"),
    ("IP", "host fe80::1ff:fe23:4567:890a", "fe80::1ff:fe23:4567:890a"),
    ("IP", "Upgrade to 10.2.3.4.5 soon.", None),
    ("IP", "Version 999.1.1.1 is not real.", None),
    ("IP", "Meet at 12:30:45 sharp.", None),
    ("IP", "MAC 00:1A:2B:3C:4D:5E is registered.", None),
    ("IP", "Section 1.2.3 covers refunds.", None),
    # --- API_KEY -----------------------------------------------------------------------
    ("API_KEY", "key sk-proj-abcdEFGH1234ijklMNOP5678qrst", "sk-proj-abcdEFGH1234ijklMNOP5678qrst"),
    (
        "API_KEY",
        "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    ("API_KEY", "aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    (
        "API_KEY",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ),
    ("API_KEY", "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("API_KEY", "slack xoxb-123456789012-abcdefghij", "xoxb-123456789012-abcdefghij"),
    (
        "API_KEY",
        "google AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
        "AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
    ),
    ("API_KEY", "gitlab glpat-xxxxXXXXxxxxXXXXxxxx", "glpat-xxxxXXXXxxxxXXXXxxxx"),
    ("API_KEY", "The sk-1 plan is cheaper.", None),
    ("API_KEY", "Use the AKIA prefix check.", None),
    ("API_KEY", "Ask on task-management-tools-overview.", None),
    ("API_KEY", "ghp_short is not a token", None),
    # --- BEARER_TOKEN ------------------------------------------------------------------
    (
        "BEARER_TOKEN",
        "Authorization: Bearer abcdef0123456789abcdef0123456789",
        "abcdef0123456789abcdef0123456789",
    ),
    (
        "BEARER_TOKEN",
        "curl -H 'authorization: bearer AbC.dEf-GhI_jKl~MnO+pQr/sTu='",
        "AbC.dEf-GhI_jKl~MnO+pQr/sTu=",
    ),
    ("BEARER_TOKEN", "The bearer of this card is the owner.", None),
    ("BEARER_TOKEN", "Bearer tokens expire after 1 hour.", None),
    # --- JWT ---------------------------------------------------------------------------
    (
        "JWT",
        "id_token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("JWT", "Files like eyJ.config.json are not tokens.", None),
]

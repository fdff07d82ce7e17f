"""What a chart writes, in the reader's language: its strings, and numbers, money and dates as the locale writes them.

The page formats with the browser's Intl (CLDR data); a chart is drawn on the server, where the standard Python
equivalent (Babel) would bring about 30 MB of CLDR data for three locales. A chart needs few formats, so they are
data in each locale's catalogue, next to its strings: separators, where the currency symbol goes and each
currency's symbol (`chart.cur.*`), month names and date patterns (`chart.fmt.*`), written as Intl writes them for
the page (tests/service/web/test_chart_text.py compares the two in Node). A new locale is one catalogue file.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import cache

from service.web.i18n import catalogue, choose_locale

_SLOT = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class ChartText:
    """One locale's chart strings and formats (`chart_text(lang)` makes and keeps one per locale)."""

    locale: str
    strings: Mapping[str, str]

    def t(self, key: str, **values: object) -> str:
        """The locale's text for `key` with its `{name}` slots filled (a slot without a value stays as written,
        as the page's `t()` does)."""
        return _SLOT.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], self.strings[key])

    def number(self, value: float, max_digits: int = 1, min_digits: int = 0) -> str:
        """`value` with the locale's separators, at most `max_digits` decimals (trailing zeros cut down to
        `min_digits`), like Intl.NumberFormat's minimum/maximumFractionDigits: fr 1 234,5, zh-Hans 1,234.5."""
        # ties away from zero on the double's exact value, as Intl rounds (Python's own format rounds ties to even)
        exact = Decimal(abs(value)).quantize(Decimal(1).scaleb(-max_digits), rounding=ROUND_HALF_UP)
        whole, _, fraction = f"{exact:,f}".partition(".")
        fraction = fraction.rstrip("0").ljust(min_digits, "0")
        written = whole.replace(",", self.strings["chart.fmt.group"])
        if fraction:
            written += self.strings["chart.fmt.decimal"] + fraction
        return f"-{written}" if value < 0 and exact != 0 else written

    def money(self, value: float, currency: str) -> str:
        """An amount as the page writes one (`gp.money`): whole units from 100 up, cents below."""
        return self.money_digits(value, currency, 0 if abs(value) >= 100 else 2)

    def money_digits(self, value: float, currency: str, digits: int, min_digits: int | None = None) -> str:
        """An amount with `digits` decimals (at least `min_digits`; all of them when not given)."""
        amount = self.number(abs(value), digits, digits if min_digits is None else min_digits)
        return self._money(value, currency, amount, "chart.fmt.money")

    def compact_money(self, value: float, currency: str) -> str:
        """An amount in thousands (en $12k, fr 12 k €) or, in Chinese, ten-thousands (US$1.2万): axis ticks."""
        if value == 0:
            return self.money_digits(0, currency, 0)  # as Intl's compact notation writes zero: $0, 0 $US
        unit = float(self.strings["chart.fmt.compact_unit"])
        return self._money(value, currency, self.number(abs(value) / unit, 1), "chart.fmt.money_compact")

    def _money(self, value: float, currency: str, amount: str, pattern: str) -> str:
        sign = "-" if value < 0 and any(c in "123456789" for c in amount) else ""
        symbol = self.strings.get(f"chart.cur.{currency}", currency)
        return self.t(pattern, sign=sign, symbol=symbol, n=amount)

    def rate_money(self, value: float, currency: str) -> str:
        """A price per unit (kWh) to a hundredth of a cent, as the page's `rateMoney`: 0.175 stays 0.175."""
        return self.money_digits(value, currency, 4, 2)

    def percent(self, share: float, digits: int = 1) -> str:
        """A share (0.15) as the locale writes a percentage with `digits` decimals: 15.0%, 15,0 %."""
        return self.t("chart.fmt.percent", n=self.number(share * 100, digits, digits))

    def month(self, when: dt.date) -> str:
        """The month's short name: Jan, janv., 1月."""
        return self.strings["chart.fmt.months"].split("|")[when.month - 1]

    def month_year(self, when: dt.date) -> str:
        """Jan 2027, janv. 2027, 2027年1月."""
        return self.t("chart.fmt.month_year", month=self.month(when), year=when.year)

    def year(self, when: dt.date) -> str:
        return self.t("chart.fmt.year", year=when.year)

    def day_month(self, when: dt.date) -> str:
        """Sep 19, 19 sept., 9月19日."""
        return self.t("chart.fmt.day_month", month=self.month(when), day=when.day)

    def date(self, when: dt.date) -> str:
        """A date as the page writes one (`gp.date`): Sep 19, 2027; 19 sept. 2027; 2027年9月19日."""
        return self.t("chart.fmt.date", month=self.month(when), day=when.day, year=when.year)


@cache
def chart_text(lang: str | None = None) -> ChartText:
    """The chart text of `lang`, read as the page reads `?lang=` (zh-CN is zh-Hans; an unknown tag is English)."""
    locale = choose_locale(lang, None, None)
    return ChartText(locale, catalogue(locale))

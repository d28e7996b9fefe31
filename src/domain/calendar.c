/*
 * calendar.c -- the proleptic Gregorian calendar that date bins need: a
 * date as a day number, and widths of days, weeks, months and years.
 *
 * Plain arithmetic, no server call, so the fuzzer builds it as it is.  The
 * day-number conversions are the standard civil-calendar formulas over
 * 400-year eras (146,097 days each); day 0 is 1970-01-01.  Written here
 * because PostgreSQL's own (date2j, timestamp_pl_interval) need a backend
 * and read the session's settings, which the bins must not depend on.
 */
#include "postgres.h"

#include <ctype.h>

#include "domain/calendar.h"

int64
calendar_day(int y, int m, int d)
{
	int64		yy = y - (m <= 2);
	int64		era = (yy >= 0 ? yy : yy - 399) / 400;
	int64		yoe = yy - era * 400;
	int64		doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64		doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

void
calendar_date(int64 day, int *y, int *m, int *d)
{
	int64		z = day + 719468;
	int64		era = (z >= 0 ? z : z - 146096) / 146097;
	int64		doe = z - era * 146097;
	int64		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64		mp = (5 * doy + 2) / 153;

	*d = (int) (doy - (153 * mp + 2) / 5 + 1);
	*m = (int) (mp < 10 ? mp + 3 : mp - 9);
	*y = (int) (yoe + era * 400 + (*m <= 2));
}

bool
calendar_parse_date(const char *s, int64 *day)
{
	int			y,
				m,
				d,
				yy,
				mm,
				dd;

	if (s == NULL || strlen(s) != 10 || s[4] != '-' || s[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char) s[i]))
			return false;
	y = atoi(s);
	m = atoi(s + 5);
	d = atoi(s + 8);
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > 31)
		return false;
	/* a day that does not exist (2023-02-29) does not come back the same */
	*day = calendar_day(y, m, d);
	calendar_date(*day, &yy, &mm, &dd);
	return yy == y && mm == m && dd == d;
}

bool
calendar_parse_width(const char *s, CalendarWidth *w)
{
	static const struct
	{
		const char *name;
		CalendarUnit unit;
	}			units[] = {
		{"day", CALENDAR_DAY}, {"days", CALENDAR_DAY}, {"week", CALENDAR_WEEK}, {"weeks", CALENDAR_WEEK},
		{"month", CALENDAR_MONTH}, {"months", CALENDAR_MONTH}, {"year", CALENDAR_YEAR}, {"years", CALENDAR_YEAR}
	};
	long		n = 0;
	const char *p = s;

	if (s == NULL)
		return false;
	while (isdigit((unsigned char) *p) && n <= 10000)
		n = n * 10 + (*p++ - '0');
	if (p == s || n < 1 || n > 10000 || *p != ' ')
		return false;
	while (*p == ' ')
		p++;
	for (int i = 0; i < (int) lengthof(units); i++)
		if (strcmp(p, units[i].name) == 0)
		{
			w->count = (int) n;
			w->unit = units[i].unit;
			return true;
		}
	return false;
}

int64
calendar_add(int64 day, const CalendarWidth *w)
{
	int			y,
				m,
				d;
	int64		months;

	if (w->unit == CALENDAR_DAY)
		return day + w->count;
	if (w->unit == CALENDAR_WEEK)
		return day + 7 * (int64) w->count;
	/* months and years keep the day of the month, which the caller keeps at most 28 */
	calendar_date(day, &y, &m, &d);
	months = (int64) y * 12 + (m - 1) + (int64) w->count * (w->unit == CALENDAR_YEAR ? 12 : 1);
	return calendar_day((int) (months / 12), (int) (months % 12) + 1, d);
}

char *
calendar_text(int64 day)
{
	int			y,
				m,
				d;

	calendar_date(day, &y, &m, &d);
	return psprintf("%04d-%02d-%02d", y, m, d);
}

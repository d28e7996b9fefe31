/*
 * calendar.h -- dates as day numbers (0 is 1970-01-01, proleptic
 * Gregorian) and calendar widths, for date bins (calendar.c).
 */
#ifndef DPM_CALENDAR_H
#define DPM_CALENDAR_H

typedef enum CalendarUnit
{
	CALENDAR_DAY,
	CALENDAR_WEEK,
	CALENDAR_MONTH,
	CALENDAR_YEAR
} CalendarUnit;

/* "1 month", "3 months", "2 weeks": count units */
typedef struct CalendarWidth
{
	int			count;
	CalendarUnit unit;
} CalendarWidth;

extern int64 calendar_day(int y, int m, int d);
extern void calendar_date(int64 day, int *y, int *m, int *d);
/* "YYYY-MM-DD", a day that exists, years 1 to 9999 */
extern bool calendar_parse_date(const char *s, int64 *day);
/* "N unit", unit day(s), week(s), month(s), year(s), 1 <= N <= 10000 */
extern bool calendar_parse_width(const char *s, CalendarWidth *w);
/* day plus the width; months and years keep the day of the month */
extern int64 calendar_add(int64 day, const CalendarWidth *w);
/* "YYYY-MM-DD" */
extern char *calendar_text(int64 day);

#endif

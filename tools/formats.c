/* formats.c - the table of output layouts, a row each (formats.h). */
#include <stdio.h>
#include <string.h>

#include "formats.h"

static const format_reader readers[] = {
    {.name = "vibro-1",
     .info = info_v1,
     .events = events_v1,
     .export_open = export_open_v1,
     .check = check_v1},
    {.name = "vibro-2",
     .stacked = 1,
     .info = info_v2,
     .events = events_v2,
     .export_open = export_open_v2,
     .check = check_v2},
    {.name = "vibro-3",
     .stacked = 1,
     .columns = 1,
     .table_rows = 1,
     .csv_extras = 1,
     .info = info_v2,
     .events = events_v2,
     .phases = phases_v3,
     .export_open = export_open_v2,
     .check = check_v3},
};
#define NREADERS (sizeof readers / sizeof *readers)

const format_reader *
format_reader_of(const char *format)
{
  for (size_t i = 0; i < NREADERS; i++)
    if (strcmp(format, readers[i].name) == 0)
      return &readers[i];
  return NULL;
}

const format_reader *
format_reader_latest(void)
{
  return &readers[NREADERS - 1];
}

void
format_names(char *buf, size_t len)
{
  size_t at = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NREADERS && at < len; i++) {
    int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", readers[i].name);
    at += n > 0 ? (size_t)n : 0;
  }
}

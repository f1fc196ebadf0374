/* cli.c - option parsing, help and error messages shared by the vibro
 * commands (see cli.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vibro.h"
#include "cli.h"

#define HELP_KEY  'h'
#define VALID_MAX 512 /* the longest "valid:" list of options */

int
cli_fail(const cli_command *cmd, const char *fmt, ...)
{
  va_list ap;

  if (cmd)
    fprintf(stderr, "vibro %s: ", cmd->name);
  else
    fputs("vibro: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 1;
}

int
cli_complain(const char *what, const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "%s: ", what);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return -1;
}

/* The number of options of a command, -h/--help not counted. */
static int
count_options(const cli_command *cmd)
{
  int n = 0;
  while (cmd->options && cmd->options[n].key)
    n++;
  return n;
}

/* The option's spelling for messages: "-o/--output" or "--resume". */
static void
option_name(const cli_option *o, char *buf, size_t len)
{
  if (o->key < 256)
    snprintf(buf, len, "-%c/--%s", o->key, o->name);
  else
    snprintf(buf, len, "--%s", o->name);
}

/* The list of a command's options for messages: "-o, -j, --resume, ...". */
static void
valid_options(const cli_command *cmd, char *buf, size_t len)
{
  size_t used = 0;

  buf[0] = '\0';
  for (int i = 0; i < count_options(cmd); i++) {
    const cli_option *o = &cmd->options[i];
    int n;
    char name[128];
    option_name(o, name, sizeof name);
    n = snprintf(buf + used, len - used, "%s%s%s, ", name, o->arg ? " " : "", o->arg ? o->arg : "");
    if (n < 0 || (size_t)n >= len - used)
      return;
    used += (size_t)n;
  }
  snprintf(buf + used, len - used, "--help");
}

void
cli_help(const cli_command *cmd, FILE *f)
{
  fprintf(f, "usage: vibro %s %s\n\n%s", cmd->name, cmd->synopsis, cmd->description);
  fputs("\noptions:\n", f);
  for (int i = 0; i < count_options(cmd); i++) {
    const cli_option *o = &cmd->options[i];
    char left[128];
    int n = o->key < 256 ? snprintf(left, sizeof left, "-%c, --%s", o->key, o->name)
                         : snprintf(left, sizeof left, "    --%s", o->name);
    if (o->arg && n > 0 && (size_t)n < sizeof left)
      snprintf(left + n, sizeof left - (size_t)n, "=%s", o->arg);
    fprintf(f, "  %-24s %s\n", left, o->help);
  }
  fprintf(f, "  %-24s %s\n", "-h, --help", "this help");
}

void
cli_begin(cli_args *a, const cli_command *cmd, int argc, char **argv)
{
  memset(a, 0, sizeof *a);
  a->cmd = cmd;
  a->argc = argc;
  a->argv = argv;
  a->next = 0;
}

/* Make the getopt tables from the command's options. */
static int
make_tables(cli_args *a)
{
  int n = count_options(a->cmd);
  struct option *lo = calloc((size_t)n + 2, sizeof *lo);
  char *so = malloc(3 * (size_t)n + 4);
  size_t k = 0;

  if (!lo || !so) {
    free(lo);
    free(so);
    return -1;
  }
  so[k++] = ':'; /* a missing value is ':', not '?' */
  for (int i = 0; i < n; i++) {
    const cli_option *o = &a->cmd->options[i];
    lo[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
    if (o->key < 256) {
      so[k++] = (char)o->key;
      if (o->arg)
        so[k++] = ':';
    }
  }
  lo[n] = (struct option){"help", no_argument, NULL, HELP_KEY};
  so[k++] = HELP_KEY;
  so[k] = '\0';
  a->longopts = lo;
  a->shortopts = so;
  return 0;
}

/* The option of the command with this key, or NULL. */
static const cli_option *
find_key(const cli_command *cmd, int key)
{
  for (int i = 0; i < count_options(cmd); i++)
    if (cmd->options[i].key == key)
      return &cmd->options[i];
  return NULL;
}

int
cli_next(cli_args *a)
{
  char valid[VALID_MAX], name[128];
  int key;

  if (!a->shortopts) {
    if (make_tables(a) < 0) {
      cli_fail(a->cmd, "out of memory");
      return -1;
    }
    optind = 0; /* a full reinitialisation of GNU getopt */
  }
  opterr = 0;
  a->value = NULL;
  key = getopt_long(a->argc, a->argv, a->shortopts, a->longopts, NULL);
  a->next = optind;
  if (key == -1) {
    a->operands = a->argv + optind;
    a->noperands = a->argc - optind;
    return 0;
  }
  if (key == HELP_KEY) {
    cli_help(a->cmd, stdout);
    return 'h';
  }
  if (key == ':') {
    const cli_option *o = find_key(a->cmd, optopt);
    if (o) {
      option_name(o, name, sizeof name);
      cli_fail(a->cmd, "option %s needs a value (%s)", name, o->arg);
    } else {
      cli_fail(a->cmd, "option '%s' needs a value", a->argv[optind - 1]);
    }
    return -1;
  }
  if (key == '?') {
    valid_options(a->cmd, valid, sizeof valid);
    if (optopt && optopt < 256)
      cli_fail(a->cmd, "unknown option '-%c' (valid: %s)", optopt, valid);
    else
      cli_fail(a->cmd, "unknown option '%s' (valid: %s)", a->argv[optind - 1], valid);
    return -1;
  }
  a->value = optarg;
  return key;
}

int
cli_operands(const cli_args *a, int want, const char *const *names)
{
  if (a->noperands < want) {
    cli_fail(a->cmd, "missing %s (see vibro help %s)", names[a->noperands], a->cmd->name);
    return -1;
  }
  if (a->noperands > want) {
    if (want)
      cli_fail(a->cmd, "more than one %s ('%s')", names[want - 1], a->operands[want]);
    else
      cli_fail(a->cmd, "unexpected operand '%s'", a->operands[0]);
    return -1;
  }
  return 0;
}

void
cli_end(cli_args *a)
{
  free(a->longopts);
  free(a->shortopts);
  a->longopts = NULL;
  a->shortopts = NULL;
}

int
cli_long(const char *text, long lo, long hi, long *out)
{
  char *end;
  long v;

  errno = 0;
  v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int
cli_double(const char *text, double *out)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(v))
    return -1;
  *out = v;
  return 0;
}

/* VIBRO_FTZ=0 (or "off", "no"): the runs keep subnormal numbers. */
int
cli_keep_subnormals(void)
{
  const char *v = getenv("VIBRO_FTZ");
  return v && (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no"));
}

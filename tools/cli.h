/* cli.h - the vibro command's table of subcommands, its option parser (the
 * getopt_long conventions: -j2, -j 2, --jobs=2, --jobs 2, options before
 * or after the operands, -- ends the options) and its one error helper.
 *
 * A command is one const cli_command, defined in its own file
 * (cmd_run.c, ...) and listed in main.c.  Its options are a table of
 * cli_option, from which the parser, the "valid:" list of an error and the
 * help text are all made, so they cannot drift apart. */
#ifndef VIBRO_CLI_H
#define VIBRO_CLI_H

#include <stdio.h>

/* Longest message a command builds before printing it. */
#define CLI_ERRLEN 1024

/* One option of a command. */
typedef struct cli_option {
  int key;          /* the short letter, or a code >= 256 for a long-only option */
  const char *name; /* the long name, without "--" */
  const char *arg;  /* the value's name ("N", "FILE"), NULL for a flag */
  const char *help; /* one line for the help text */
} cli_option;

/* One subcommand: vibro NAME ... */
typedef struct cli_command {
  const char *name;          /* "run" */
  const char *synopsis;      /* the operands and options after the name */
  const char *summary;       /* one line for `vibro --help` */
  const char *description;   /* the paragraphs of `vibro help NAME` */
  const cli_option *options; /* [] ended by a zero key; -h/--help is implied */
  int (*main)(const struct cli_command *cmd, int argc, char **argv); /* exit status */
} cli_command;

/* The parsed command line of one command. */
typedef struct cli_args {
  const cli_command *cmd;
  int argc; /* the command's argc (argv[0] is its name) */
  char **argv;
  int next;        /* index of the next argument getopt looks at */
  char *value;     /* the value of the option last returned, or NULL */
  char **operands; /* [noperands] what is not an option, in order */
  int noperands;
  void *longopts;  /* struct option[], made from cmd->options */
  char *shortopts; /* the getopt string, made from cmd->options */
} cli_args;

/* Start parsing argv (argv[0] is the command's name). */
void cli_begin(cli_args *a, const cli_command *cmd, int argc, char **argv);

/* The key of the next option (its value in a->value), 0 when the options
 * are over (the operands are then in a->operands), 'h' for -h/--help
 * (help printed on stdout), or -1 after printing an error naming the
 * option and the valid ones. */
int cli_next(cli_args *a);

/* Require exactly want operands, named by names[want] ("SCENE.cfg"), for
 * messages: "vibro run: missing SCENE.cfg" or "vibro run: more than one
 * SCENE.cfg ('x')".  Returns 0, or -1 after the message. */
int cli_operands(const cli_args *a, int want, const char *const *names);

/* Free what cli_begin and cli_next allocated. */
void cli_end(cli_args *a);

/* Print "vibro CMD: message" on stderr (the one error helper of the
 * commands; cmd may be NULL for "vibro: message"); returns 1, the exit
 * status for bad input. */
__attribute__((format(printf, 2, 3))) int cli_fail(const cli_command *cmd, const char *fmt, ...);

/* Print "what: message" on stderr (a file or object at fault); returns -1. */
__attribute__((format(printf, 2, 3))) int cli_complain(const char *what, const char *fmt, ...);

/* Print the full help of a command to f. */
void cli_help(const cli_command *cmd, FILE *f);

/* Parse a whole number in [lo, hi] from text; 0, or -1 if it is not one. */
int cli_long(const char *text, long lo, long hi, long *out);

/* Parse a finite number from text; 0, or -1 if it is not one. */
int cli_double(const char *text, double *out);

/* ---------------------------------------------------- subnormal numbers */
/* 1 when the environment asks the runs to keep subnormal numbers
 * (VIBRO_FTZ=0: vb_run_keep_subnormals), 0 otherwise. */
int cli_keep_subnormals(void);

/* The test suites' environment (VIBRO_TEST_*, VIBRO_NO_SKIP) handed to
 * the library's test control, once, at the start (testenv.c). */
void cli_test_environment(void);

/* The commands, defined each in its cmd_NAME.c. */
extern const cli_command cli_run, cli_check, cli_info, cli_events, cli_export;

#endif /* VIBRO_CLI_H */

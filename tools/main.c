/* main.c - the vibro command: a table of subcommands (one file each,
 * cmd_NAME.c), `vibro help CMD`, --help and --version. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hdf5.h>

#include "vibro.h"
#include "cli.h"

/* Every command, in the order `vibro --help` lists them. */
static const cli_command *const commands[] = {
    &cli_run, &cli_check, &cli_info, &cli_events, &cli_export,
};
#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

/* The command called name, or NULL. */
static const cli_command *
find_command(const char *name)
{
  for (int i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i]->name, name) == 0)
      return commands[i];
  return NULL;
}

/* "run, check, info, events, export" */
static void
command_names(char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < NCOMMANDS && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", commands[i]->name);
}

/* The overview: every command with its synopsis and summary. */
static void
usage(FILE *f)
{
  fputs("usage: vibro COMMAND [OPTIONS] [--] OPERANDS\n"
        "\n"
        "Multi-body vibro-impact simulation.\n"
        "\n"
        "commands:\n",
        f);
  for (int i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %s %s\n      %s\n", commands[i]->name, commands[i]->synopsis,
            commands[i]->summary);
  fputs("  help COMMAND\n      the options of a command (also: vibro COMMAND --help)\n"
        "\n"
        "Plots: vibro-plot --help.  Manual: man vibro.\n"
        "\n"
        "options:\n"
        "  -h, --help                this help\n"
        "  -V, --version             print the version\n"
        "\n"
        "exit status: 0 success, 1 bad input or I/O error, 2 a scene did not finish\n"
        "(diverged, or Newton failed: the output file records why).\n",
        f);
}

/* vibro help [COMMAND] */
static int
help(int argc, char **argv)
{
  char names[256];
  const cli_command *cmd;

  if (argc < 3) {
    usage(stdout);
    return 0;
  }
  cmd = find_command(argv[2]);
  if (!cmd) {
    command_names(names, sizeof names);
    return cli_fail(NULL, "help: unknown command '%s' (valid: %s)", argv[2], names);
  }
  cli_help(cmd, stdout);
  return 0;
}

/* The exit status of a command that returned `status`, once what it wrote
 * to standard output is written: a write that failed (a full disk,
 * /dev/full, a closed pipe's EIO) is an error, never exit 0. */
static int
finish(int status)
{
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && status == 0) {
    /* (a command that failed has said why already) */
    fprintf(stderr, "vibro: cannot write the standard output: %s\n",
            strerror(errno ? errno : EIO));
    return 1;
  }
  return status;
}

/* The command line, without the check of standard output. */
static int
dispatch(int argc, char **argv)
{
  char names[256];
  const cli_command *cmd;

  /* HDF5 1.10 crashes in its exit handler after a failed write (a full
   * disk); everything is closed explicitly, so the handler is not needed */
  H5dont_atexit();
  /* a threaded BLAS on one thread for the whole command: the checks and
   * the contacts' starts factor large active sets too (vb_blas_pin) */
  vb_blas_pin();
  if (argc < 2) {
    usage(stderr);
    return 1;
  }
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("vibro %s\n", vb_version());
    return 0;
  }
  if (strcmp(argv[1], "help") == 0)
    return help(argc, argv);
  cmd = find_command(argv[1]);
  if (!cmd) {
    command_names(names, sizeof names);
    return cli_fail(NULL, "unknown command '%s' (valid: %s)", argv[1], names);
  }
  return cmd->main(cmd, argc - 1, argv + 1);
}

int
main(int argc, char **argv)
{
  /* a shard of OUT.part/ that is an MPI run's checkpoint keeps its signals
   * in OUT.part/shared-rows.h5 (HDF5 external storage, doc/mpi.md): HDF5
   * finds that name beside the shard, not in the working directory */
  setenv("HDF5_EXTFILE_PREFIX", "${ORIGIN}", 0);
  cli_test_environment();
  return finish(dispatch(argc, argv));
}

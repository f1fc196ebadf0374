/* inspect.h - the vibro commands that read an output file (layout
 * "vibro-N", see README.md): info, events and export.  Each takes the
 * command's own argc/argv (argv[0] is the command name), prints one line
 * "FILE: what is wrong" on stderr for bad input and returns the process
 * exit status: 0 success, 1 bad input or I/O error. */
#ifndef VIBRO_INSPECT_H
#define VIBRO_INSPECT_H

/* vibro info OUT.h5 [--all]: the file at a glance. */
int cmd_info(int argc, char **argv);
/* vibro events OUT.h5 [--scene N] [--contact NAME] [--csv]: event tables. */
int cmd_events(int argc, char **argv);
/* vibro export OUT.h5 [--scene N] --signal PATH (--csv FILE | --wav FILE). */
int cmd_export(int argc, char **argv);

#endif /* VIBRO_INSPECT_H */

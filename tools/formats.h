/* formats.h - one reader per format version of vibro's output, chosen
 * once, when a file is opened (outputs_open looks up the root attribute
 * `format` here), as netCDF-c's dispatch tables choose a format's
 * functions: a command reaches the layout of a file through its row and
 * never asks which version it is.  A new layout is a new row (and the
 * functions it does not share with an older one); doc/format.md describes
 * each.
 *
 *   vibro-1  a group per scene, /scenes/NNNNNN, its signals and per-contact
 *            event tables inside (README.md, "Output");
 *   vibro-2  signals stacked [scene][time] in /signals, /model, the study
 *            table and the events as compound datasets;
 *   vibro-3  vibro-2 with /study/table, /study/events and the analysis
 *            tables as groups of columns, each against its coordinate. */
#ifndef VIBRO_FORMATS_H
#define VIBRO_FORMATS_H

#include <hdf5.h>

struct output_files;
struct exported;
struct request;

typedef struct format_reader {
  const char *name; /* the root attribute format, "vibro-N" */
  /* facts of the layout that the shared readers consult */
  int stacked;      /* signals stacked [scene][time] in /signals, with /model */
  int columns;      /* the tables are groups of columns (else compound datasets) */
  int table_rows;   /* row i of /study/table is row i of /signals, so info can
                       give a scene's balance relative to the energy through it */
  int csv_extras;   /* `vibro events --csv` prints the impact number and cor */
  /* the commands' readers (cmd_info.c, info2.c, cmd_events.c, cmd_export.c,
   * h5check.c); 0, or -1 after a message */
  int (*info)(const char *file, const struct output_files *of, int all, int points);
  int (*events)(const char *file, const struct output_files *of, const char *scene,
                const char *contact, int csv);
  /* the stick and slip phases (`vibro events --phases`); NULL: the layout has none */
  int (*phases)(const char *file, const struct output_files *of, const char *scene,
                const char *contact, int csv);
  int (*export_open)(struct exported *sg, const struct output_files *of,
                     const struct request *rq);
  int (*check)(const char *file, hid_t fid);
} format_reader;

/* The reader of format (the root attribute), or NULL when no row names it. */
const format_reader *format_reader_of(const char *format);
/* The newest layout's reader (what a study's shards are when none is
 * finished yet). */
const format_reader *format_reader_latest(void);
/* "vibro-1, vibro-2, vibro-3" into buf, for messages. */
void format_names(char *buf, size_t len);

/* The rows' functions, defined by the commands' files. */
int info_v1(const char *file, const struct output_files *of, int all, int points);
int info_v2(const char *file, const struct output_files *of, int all, int points);
int events_v1(const char *file, const struct output_files *of, const char *scene,
              const char *contact, int csv);
int events_v2(const char *file, const struct output_files *of, const char *scene,
              const char *contact, int csv);
int phases_v3(const char *file, const struct output_files *of, const char *scene,
              const char *contact, int csv);
int export_open_v1(struct exported *sg, const struct output_files *of, const struct request *rq);
int export_open_v2(struct exported *sg, const struct output_files *of, const struct request *rq);
int check_v1(const char *file, hid_t fid);
int check_v2(const char *file, hid_t fid);
int check_v3(const char *file, hid_t fid);

#endif /* VIBRO_FORMATS_H */

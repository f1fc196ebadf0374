/* cmd_export.c - vibro export: recorded signals of a scene as CSV columns
 * or as the channels of a sound file (WAV or FLAC, through libsndfile). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sndfile.h>

#include "cli.h"
#include "h5check.h"
#include "h5read.h"
#include "formats.h"
#include "outfile.h"
#include "points.h"

/* libsndfile, opened when a sound file is written (dlopen): the other
 * commands, and `vibro --version`, do not load it and the eight codec
 * libraries it needs (FLAC, Vorbis, Opus, MPEG: half a millisecond of the
 * dynamic loader at every start, issue 33 item 5). */
typedef struct sndfile_api {
  SNDFILE *(*open_fd)(int fd, int mode, SF_INFO *info, int close_desc);
  sf_count_t (*writef_int)(SNDFILE *snd, const int *ptr, sf_count_t frames);
  sf_count_t (*writef_float)(SNDFILE *snd, const float *ptr, sf_count_t frames);
  int (*close)(SNDFILE *snd);
  const char *(*strerror)(SNDFILE *snd);
} sndfile_api;

/* Look one entry point up into *fn (a function pointer's bytes); 0 when
 * it is there. */
static int
sndfile_sym(void *h, const char *name, void *fn, size_t size)
{
  void *p = dlsym(h, name);
  if (!p)
    return -1;
  memcpy(fn, &p, size); /* object to function pointer (ISO C has no cast) */
  return 0;
}

/* libsndfile.so.1's entry points into *api; 0, or -1 with the reason
 * said against dest. */
static int
sndfile_load(sndfile_api *api, const char *dest)
{
  void *h = dlopen("libsndfile.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h || sndfile_sym(h, "sf_open_fd", &api->open_fd, sizeof api->open_fd) ||
      sndfile_sym(h, "sf_writef_int", &api->writef_int, sizeof api->writef_int) ||
      sndfile_sym(h, "sf_writef_float", &api->writef_float, sizeof api->writef_float) ||
      sndfile_sym(h, "sf_close", &api->close, sizeof api->close) ||
      sndfile_sym(h, "sf_strerror", &api->strerror, sizeof api->strerror))
    return cli_complain(dest, "cannot write: libsndfile cannot be loaded (%s) (valid: a "
                              "libsndfile.so.1, Debian's libsndfile1)", dlerror());
  return 0;
}

#define CHANNELS_MAX 64   /* signals exported at once */
#define FRAMES       8192 /* frames converted at once */

static const char description[] =
    "Write recorded signals of a scene: each PATH names a signal of the scene,\n"
    "e.g. bodies/hammer/u, contacts/hit/force, energy/total (or\n"
    "bodies.hammer.u).  Give --signal once per signal: a CSV has a column each,\n"
    "a sound file a channel each.  In a study's file (vibro-2, -3) the signal\n"
    "is a row of the stacked /signals (in vibro-1, a dataset of /scenes/NNNNNN), and the scene's\n"
    "row is exported, as many samples as its row of /study/table says; a\n"
    "running study's shards are searched for the scene.  A distributed\n"
    "contact's [scene][point][time] signal gives one point's samples: name\n"
    "it contacts/neck[K]/force, or contacts/neck/force with --point K.\n"
    "--csv FILE   time and the signals, after a header naming the units\n"
    "--wav FILE   a WAV file at the recorded rate, fs / record_every (rounded\n"
    "--flac FILE  to whole hertz, with a warning when that moves the pitch), or a\n"
    "             FLAC file (16 or 24 bits); FILE named .wav or .flac (or with\n"
    "             no extension): an .mp3 or .ogg name is refused\n"
    "A sound file is normalised by default: the peak over all channels is\n"
    "full scale (an all-zero signal gives silence; NaN and inf become 0).\n"
    "--dc takes each channel's mean away first, --highpass HZ filters it\n"
    "with a 2nd-order Butterworth high-pass (at rest on the first sample, so\n"
    "a static offset such as a pickup's rest position gives no click).\n"
    "--gain G instead scales every sample by G (full scale is 1), so that\n"
    "two scenes can be compared at the same gain; PCM samples beyond full\n"
    "scale are clipped, with a warning.  FILE - is standard output.  The\n"
    "file is written beside FILE under a temporary name and renamed when\n"
    "complete: a failed export leaves FILE as it was.  FILE may not be a\n"
    "symbolic link, a directory, a device, OUT.h5 itself, or a file you may\n"
    "not write; a replaced FILE keeps its mode.\n"
    "--scene may be left out when the file holds a single scene.\n";

/* A sample encoding of a sound file. */
typedef struct encoding {
  const char *name; /* --encoding value */
  const char *text; /* for the summary line */
  int subtype;      /* libsndfile subtype */
  double full;      /* full-scale integer, 0 for float */
  int shift;        /* left shift into libsndfile's 32-bit ints */
} encoding;

static const encoding encodings[] = {
    {"pcm16", "16-bit", SF_FORMAT_PCM_16, 32767.0, 16},
    {"pcm24", "24-bit", SF_FORMAT_PCM_24, 8388607.0, 8},
    {"float", "32-bit float", SF_FORMAT_FLOAT, 0.0, 0},
};
#define NENCODINGS ((int)(sizeof encodings / sizeof encodings[0]))

/* What export reads. */
typedef struct exported {
  const char *file; /* the output file, for messages */
  int nsignals;
  const char *paths[CHANNELS_MAX]; /* as given, without a leading / */
  hid_t ds[CHANNELS_MAX];          /* the signal datasets */
  char units[CHANNELS_MAX][64];    /* their units attributes, "" if none */
  hid_t time;                      /* the scene's time dataset, or negative */
  long n;                          /* samples of each signal */
  double rate;                     /* recorded rate, Hz: fs / record_every */
  int stacked;                     /* vibro-2: signals are [scene][time] ... */
  hsize_t row;                     /* ... and the scene is this row */
  long point;                      /* --point K, or -1 */
  long at[CHANNELS_MAX];           /* each signal's point ([scene][point][time]), or -1 */
} exported;

/* Read count samples from start of a signal of the scene. */
static int
signal_block(const exported *sg, hid_t ds, hsize_t start, hsize_t count, double *buf)
{
  if (!sg->stacked)
    return read_block(ds, start, count, buf);
  for (int c = 0; c < sg->nsignals; c++)
    if (sg->ds[c] == ds)
      return signal_read_stacked(ds, sg->row, sg->at[c], start, count, buf);
  return -1;
}

/* What export was asked for. */
typedef struct request {
  const char *scene, *csv, *wav, *flac;
  const encoding *enc;
  double gain;     /* fixed gain, or NaN to normalise */
  int dc;          /* sound: subtract each channel's mean */
  double highpass; /* sound: high-pass corner, Hz, or 0 */
} request;

/* The conditioning of a sound file's channels (--dc, --highpass), run
 * from the first sample on every pass over the signals, so the pass that
 * measures the peak and the one that writes see the same samples. */
typedef struct conditioner {
  double mean[CHANNELS_MAX]; /* --dc: subtracted, in the signal's units */
  double b0, b1, b2, a1, a2; /* --highpass: the biquad, a0 = 1 */
  double z[CHANNELS_MAX][2]; /* its state (transposed direct form II) */
  int started;               /* the state holds the first sample's rest */
} conditioner;

/* Read frames [start, start + count) of every signal, interleaved. */
static int
read_frames(const exported *sg, long start, long count, double *col, double *frames)
{
  for (int c = 0; c < sg->nsignals; c++) {
    if (signal_block(sg, sg->ds[c], (hsize_t)start, (hsize_t)count, col) < 0)
      return cli_complain(sg->file, "cannot read %s", sg->paths[c]);
    for (long i = 0; i < count; i++)
      frames[i * sg->nsignals + c] = col[i];
  }
  return 0;
}

/* The second-order Butterworth high-pass at fc (Hz) for rate (Hz), by the
 * bilinear transform with the corner pre-warped: K = tan(pi fc / rate),
 * H(z) = (1 - 2 z^-1 + z^-2) / (1 + K^2 + sqrt2 K) / (1 + a1 z^-1 + a2 z^-2)
 * (the coefficients scipy.signal.butter(2, fc, "highpass", fs=rate) gives). */
static void
highpass_design(conditioner *cd, double fc, double rate)
{
  double k = tan(M_PI * fc / rate), norm = 1.0 / (1.0 + M_SQRT2 * k + k * k);
  cd->b0 = norm;
  cd->b1 = -2.0 * norm;
  cd->b2 = norm;
  cd->a1 = 2.0 * (k * k - 1.0) * norm;
  cd->a2 = (1.0 - M_SQRT2 * k + k * k) * norm;
}

/* Condition count interleaved frames in place: non-finite samples become
 * 0, --dc takes the mean away, --highpass filters; the filter starts at
 * rest on the first sample (as if it had always been there: no click from
 * a static offset). */
static void
condition(const exported *sg, const request *rq, conditioner *cd, double *frames, long count)
{
  int nc = sg->nsignals;
  for (long i = 0; i < count * nc; i++) {
    double x = isfinite(frames[i]) ? frames[i] : 0.0;
    frames[i] = rq->dc ? x - cd->mean[i % nc] : x;
  }
  if (rq->highpass <= 0.0)
    return;
  for (int c = 0; c < nc && !cd->started && count > 0; c++) {
    cd->z[c][0] = -cd->b0 * frames[c]; /* y = 0 for a constant input */
    cd->z[c][1] = cd->b2 * frames[c];
  }
  cd->started = 1;
  for (long i = 0; i < count; i++)
    for (int c = 0; c < nc; c++) {
      double x = frames[i * nc + c], y = cd->b0 * x + cd->z[c][0];
      cd->z[c][0] = cd->b1 * x - cd->a1 * y + cd->z[c][1];
      cd->z[c][1] = cd->b2 * x - cd->a2 * y;
      frames[i * nc + c] = y;
    }
}

/* Start a pass over a sound file's frames: the filter at rest, and for
 * --dc each channel's mean over its finite samples (one more pass). */
static int
condition_start(const exported *sg, const request *rq, conditioner *cd, double *col)
{
  cd->started = 0;
  if (rq->highpass > 0.0)
    highpass_design(cd, rq->highpass, sg->rate);
  for (int c = 0; c < sg->nsignals && rq->dc; c++) {
    double sum = 0.0;
    long n = 0;
    for (long start = 0; start < sg->n; start += FRAMES) {
      long count = sg->n - start < FRAMES ? sg->n - start : FRAMES;
      if (signal_block(sg, sg->ds[c], (hsize_t)start, (hsize_t)count, col) < 0)
        return cli_complain(sg->file, "cannot read %s", sg->paths[c]);
      for (long i = 0; i < count; i++)
        if (isfinite(col[i])) {
          sum += col[i];
          n++;
        }
    }
    cd->mean[c] = n > 0 ? sum / (double)n : 0.0;
  }
  return 0;
}

/* Write time and the signals as CSV rows; times from the time dataset,
 * else k / rate. */
static int
export_csv(const exported *sg, FILE *out)
{
  double *v = malloc(BLOCK * sizeof *v), *t = malloc(BLOCK * sizeof *t);
  double *frames = malloc((size_t)BLOCK * (size_t)sg->nsignals * sizeof *frames);
  int rc = -1;

  if (!v || !t || !frames) {
    cli_complain(sg->file, "out of memory");
    goto done;
  }
  fprintf(out, "time (s)");
  for (int c = 0; c < sg->nsignals; c++)
    if (sg->point >= 0 && sg->at[c] >= 0 && !strchr(sg->paths[c], '['))
      fprintf(out, sg->units[c][0] ? ",%s point %ld (%s)" : ",%s point %ld", sg->paths[c],
              sg->at[c], sg->units[c]);
    else
      fprintf(out, sg->units[c][0] ? ",%s (%s)" : ",%s", sg->paths[c], sg->units[c]);
  fputc('\n', out);
  for (long start = 0; start < sg->n; start += BLOCK) {
    long count = sg->n - start < BLOCK ? sg->n - start : BLOCK;
    if (read_frames(sg, start, count, v, frames) < 0)
      goto done;
    if (sg->time >= 0 && read_block(sg->time, (hsize_t)start, (hsize_t)count, t) < 0) {
      cli_complain(sg->file, "cannot read time");
      goto done;
    }
    for (long i = 0; i < count; i++) {
      fprintf(out, "%.17g", sg->time >= 0 ? t[i] : (double)(start + i) / sg->rate);
      for (int c = 0; c < sg->nsignals; c++)
        fprintf(out, ",%.17g", frames[i * sg->nsignals + c]);
      fputc('\n', out);
    }
  }
  rc = 0;
done:
  free(frames);
  free(t);
  free(v);
  return rc;
}

/* The largest |sample| of the conditioned channels (non-finite samples
 * count as 0). */
static int
signals_peak(const exported *sg, const request *rq, double *peak)
{
  size_t nf = (size_t)FRAMES * (size_t)sg->nsignals;
  double *col = malloc(FRAMES * sizeof *col), *frames = malloc(nf * sizeof *frames);
  conditioner cd = {.started = 0};
  int rc = -1;

  *peak = 0.0;
  if (!col || !frames) {
    cli_complain(sg->file, "out of memory");
    goto done;
  }
  if (condition_start(sg, rq, &cd, col) < 0)
    goto done;
  for (long start = 0; start < sg->n; start += FRAMES) {
    long count = sg->n - start < FRAMES ? sg->n - start : FRAMES;
    if (read_frames(sg, start, count, col, frames) < 0)
      goto done;
    condition(sg, rq, &cd, frames, count);
    for (long i = 0; i < count * sg->nsignals; i++)
      if (fabs(frames[i]) > *peak)
        *peak = fabs(frames[i]);
  }
  rc = 0;
done:
  free(frames);
  free(col);
  return rc;
}

/* Convert a block of frames in place to the encoding: scale, NaN and inf
 * to 0, PCM clipped to full scale (counted in *clipped), then into
 * libsndfile's 32-bit ints (ints) or floats (floats). */
static void
convert(const encoding *enc, double scale, double *x, long n, int *ints, float *floats,
        long *clipped)
{
  for (long i = 0; i < n; i++) {
    double s = isfinite(x[i]) ? x[i] * scale : 0.0;
    if (enc->full == 0.0) {
      floats[i] = (float)s;
      continue;
    }
    if (s > 1.0 || s < -1.0) {
      (*clipped)++;
      s = s > 1.0 ? 1.0 : -1.0;
    }
    ints[i] = (int)((uint32_t)(int32_t)lrint(s * enc->full) << enc->shift);
  }
}

/* Write len bytes to fd whole; 0, or -1 with errno. */
static int
write_whole(int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

/* Put v little-endian in n bytes at p. */
static unsigned char *
put_le(unsigned char *p, uint32_t v, int n)
{
  for (int i = 0; i < n; i++)
    *p++ = (unsigned char)(v >> (8 * i));
  return p;
}

/* A 32-bit float WAV, written here rather than by libsndfile: the WAV
 * spec wants the fmt chunk of every non-PCM format to carry cbSize (18
 * bytes; here 0) and a fact chunk, and libsndfile writes a 16-byte fmt
 * chunk (sox warns "wave header missing extended part of fmt chunk";
 * its WAVE_FORMAT_EXTENSIBLE float files draw the same warning from sox
 * 14.4).  RIFF, fmt (WAVE_FORMAT_IEEE_FLOAT = 3), fact, data. */
static int
float_wav(const exported *sg, const request *rq, conditioner *cd, outfile *o, double scale,
          double *col, double *frames, float *floats)
{
  uint32_t rate = (uint32_t)lrint(sg->rate < 1.0 ? 1.0 : sg->rate), nc = (uint32_t)sg->nsignals;
  uint32_t data = (uint32_t)sg->n * nc * 4;
  unsigned char head[58], *p = head, *bytes = (unsigned char *)floats;
  long clipped = 0;

  memcpy(p, "RIFF", 4);
  p = put_le(p + 4, 50 + data, 4);
  memcpy(p, "WAVEfmt ", 8);
  p = put_le(p + 8, 18, 4);
  p = put_le(p, 3, 2);
  p = put_le(p, nc, 2);
  p = put_le(p, rate, 4);
  p = put_le(p, rate * nc * 4, 4);
  p = put_le(p, nc * 4, 2);
  p = put_le(p, 32, 2);
  p = put_le(p, 0, 2);
  memcpy(p, "fact", 4);
  p = put_le(p + 4, 4, 4);
  p = put_le(p, (uint32_t)sg->n, 4);
  memcpy(p, "data", 4);
  put_le(p + 4, data, 4);
  if (write_whole(o->fd, head, sizeof head) != 0)
    return cli_complain(o->dest, "cannot write: %s", strerror(errno));
  for (long start = 0; start < sg->n; start += FRAMES) {
    long count = sg->n - start < FRAMES ? sg->n - start : FRAMES, m = count * sg->nsignals;
    if (read_frames(sg, start, count, col, frames) < 0)
      return -1;
    condition(sg, rq, cd, frames, count);
    convert(rq->enc, scale, frames, m, NULL, floats, &clipped);
    for (long i = 0; i < m; i++) {
      uint32_t u;
      memcpy(&u, &floats[i], 4);
      put_le(bytes + 4 * i, u, 4);
    }
    if (write_whole(o->fd, bytes, (size_t)m * 4) != 0)
      return cli_complain(o->dest, "cannot write: %s", strerror(errno));
  }
  return 0;
}

/* Write the signals as a sound file of format (SF_FORMAT_WAV or _FLAC)
 * to the open file o, every sample times scale; *clipped counts the PCM
 * samples beyond full scale. */
static int
export_sound(const exported *sg, const request *rq, outfile *o, int format, double scale,
             long *clipped)
{
  const encoding *enc = rq->enc;
  SF_INFO info = {.samplerate = (int)lrint(sg->rate),
                  .channels = sg->nsignals,
                  .format = format | enc->subtype};
  conditioner cd = {.started = 0};
  size_t nf = (size_t)FRAMES * (size_t)sg->nsignals;
  double *col = malloc(FRAMES * sizeof *col), *frames = malloc(nf * sizeof *frames);
  int *ints = malloc(nf * sizeof *ints);
  float *floats = malloc(nf * sizeof *floats);
  SNDFILE *snd = NULL;
  sndfile_api sf = {0};
  int rc = -1;

  *clipped = 0;
  if (info.samplerate < 1)
    info.samplerate = 1;
  if (!col || !frames || !ints || !floats) {
    cli_complain(sg->file, "out of memory");
    goto done;
  }
  if (condition_start(sg, rq, &cd, col) < 0)
    goto done;
  if (format == SF_FORMAT_WAV && enc->full == 0.0) {
    rc = float_wav(sg, rq, &cd, o, scale, col, frames, floats);
    goto done;
  }
  if (sndfile_load(&sf, o->dest) < 0)
    goto done;
  snd = sf.open_fd(o->fd, SFM_WRITE, &info, 0);
  if (!snd) {
    cli_complain(o->dest, "cannot write: %s", sf.strerror(NULL));
    goto done;
  }
  for (long start = 0; start < sg->n; start += FRAMES) {
    long count = sg->n - start < FRAMES ? sg->n - start : FRAMES;
    sf_count_t wrote;
    if (read_frames(sg, start, count, col, frames) < 0)
      goto done;
    condition(sg, rq, &cd, frames, count);
    convert(enc, scale, frames, count * sg->nsignals, ints, floats, clipped);
    wrote =
        enc->full == 0.0 ? sf.writef_float(snd, floats, count) : sf.writef_int(snd, ints, count);
    if (wrote != count) {
      cli_complain(o->dest, "cannot write: %s", sf.strerror(snd));
      goto done;
    }
  }
  rc = 0;
done:
  if (snd && sf.close(snd) != 0 && rc == 0)
    rc = cli_complain(o->dest, "cannot write: %s", sf.strerror(NULL));
  free(floats);
  free(ints);
  free(frames);
  free(col);
  return rc;
}

/* Write a sound file through a temporary file and say what was written.
 * Standard output gets a finished file, copied from an unnamed one. */
static int
write_sound(const exported *sg, const request *rq, const char *dest, int format, int quiet)
{
  const char *inputs[] = {sg->file};
  double peak = 0.0, scale;
  long clipped = 0;
  outfile o;
  int failed, same_units = 1;

  if (format == SF_FORMAT_FLAC && rq->enc->full == 0.0)
    return cli_complain(dest, "FLAC holds integer samples (valid --encoding: pcm16, pcm24)");
  if (sg->rate > 2147483647.0 || (double)sg->n * sg->nsignals * 4.0 > 4294967000.0)
    return cli_complain(dest, "the signals are too long or too fast for a sound file");
  if (rq->highpass > 0.0 && !(rq->highpass < 0.5 * sg->rate))
    return cli_complain(dest, "--highpass %g: at or above half the recorded rate, %g Hz",
                        rq->highpass, 0.5 * sg->rate);
  if (signals_peak(sg, rq, &peak) < 0)
    return -1;
  scale = isnan(rq->gain) ? (peak > 0.0 ? 1.0 / peak : 0.0) : rq->gain;
  if (outfile_open(&o, dest, inputs, 1) < 0)
    return -1;
  if (o.fd == 1) {
    /* libsndfile seeks back to finish a header: write an unnamed file */
    FILE *tmp = tmpfile();
    char buf[65536];
    size_t got;
    outfile t = {.dest = dest, .fd = tmp ? fileno(tmp) : -1};
    failed = !tmp || export_sound(sg, rq, &t, format, scale, &clipped) < 0;
    if (tmp && !failed && fseek(tmp, 0, SEEK_SET) == 0)
      while ((got = fread(buf, 1, sizeof buf, tmp)) > 0)
        failed |= fwrite(buf, 1, got, stdout) != got;
    if (tmp)
      fclose(tmp);
  } else {
    failed = export_sound(sg, rq, &o, format, scale, &clipped) < 0;
  }
  if (outfile_close(&o, failed) < 0)
    return -1;
  if (fabs(sg->rate - (double)lrint(sg->rate)) > 1e-9 * sg->rate)
    fprintf(stderr,
            "warning: %s: the recorded rate fs / record.every, %.9g Hz, is written as %ld Hz "
            "(%+.3g cents)\n",
            dest, sg->rate, lrint(sg->rate), 1200.0 * log2((double)lrint(sg->rate) / sg->rate));
  if (clipped)
    fprintf(stderr,
            "warning: %s: %ld samples beyond full scale clipped (peak %.6g times "
            "gain %g)\n",
            dest, clipped, peak, scale);
  if (quiet)
    return 0;
  printf("%s: %ld samples at %ld Hz, %s", dest, sg->n, lrint(sg->rate), rq->enc->text);
  if (sg->nsignals == 1)
    printf(" mono");
  else
    printf(", %d channels", sg->nsignals);
  for (int c = 1; c < sg->nsignals; c++)
    same_units &= strcmp(sg->units[c], sg->units[0]) == 0;
  printf(", peak %.6g%s%s", peak, same_units && sg->units[0][0] ? " " : "",
         same_units ? sg->units[0] : "");
  if (isnan(rq->gain))
    printf(" -> full scale\n");
  else
    printf(", gain %g -> %.3g of full scale\n", rq->gain, peak * rq->gain);
  return 0;
}

/* The scene group chosen (or the only one) under /scenes; its name into
 * group, or -1 after a message. */
static int
choose_scene(const char *file, hid_t fid, const char *scene, char *group, size_t len)
{
  char choices[CHOICES_MAX + 16];
  namelist scenes = {0};
  long s = -1;

  if (children(file, fid, "scenes", &scenes) < 0)
    return -1;
  if (scenes.n == 0)
    cli_complain(file, "no scenes");
  else if (scene)
    s = scene_find(file, &scenes, scene);
  else if (scenes.n == 1)
    s = 0;
  else {
    scene_choices(&scenes, choices, sizeof choices);
    cli_complain(file, "%zu scenes: choose one with --scene (valid: %s)", scenes.n, choices);
  }
  if (s >= 0)
    snprintf(group, len, "%s", scenes.v[s]);
  names_free(&scenes);
  return s >= 0 ? 0 : -1;
}

/* Open signal c of the scene group g: a 1-d numeric dataset, as long as
 * the first.  -1 after a message naming the valid signals. */
static int
open_signal(exported *sg, hid_t g, const char *label, int c)
{
  char choices[CHOICES_MAX + 16];
  namelist valid = {0};
  long n = signal_length(g, sg->paths[c]);

  if (n < 0) {
    int exists = has_object(g, sg->paths[c]);
    if (collect_signals(sg->file, g, "", 0, &valid) < 0)
      return -1;
    names_join(&valid, choices, sizeof choices);
    names_free(&valid);
    if (exists)
      return cli_complain(sg->file, "'%s' in scene %s is not a 1-d signal (valid: %s)",
                          sg->paths[c], label, choices);
    return cli_complain(sg->file, "no signal '%s' in scene %s (valid: %s)", sg->paths[c], label,
                        choices);
  }
  if (c > 0 && n != sg->n)
    return cli_complain(sg->file,
                        "'%s' has %ld samples, '%s' %ld: signals of one export "
                        "share a time axis",
                        sg->paths[c], n, sg->paths[0], sg->n);
  sg->n = n;
  sg->ds[c] = H5Dopen2(g, sg->paths[c], H5P_DEFAULT);
  if (sg->ds[c] < 0)
    return cli_complain(sg->file, "cannot open %s in scene %s", sg->paths[c], label);
  attr_text(sg->ds[c], "units", sg->units[c], sizeof sg->units[c]);
  return 0;
}

/* vibro-1 (formats.h): open the chosen scene's signals and its rate. */
int
export_open_v1(exported *sg, const output_files *of, const request *rq)
{
  hid_t fid = of->fid[0];
  char group[NAME_LEN], label[PATH_LEN], path[PATH_LEN];
  double fs, every;
  hid_t g;
  int rc = -1;

  if (choose_scene(sg->file, fid, rq->scene, group, sizeof group) < 0)
    return -1;
  scene_label(group, label, sizeof label);
  text_format(path, sizeof path, "scenes/%s", group);
  g = H5Gopen2(fid, path, H5P_DEFAULT);
  if (g < 0)
    return cli_complain(sg->file, "cannot open /scenes/%s", group);
  for (int c = 0; c < sg->nsignals; c++)
    if (open_signal(sg, g, label, c) < 0)
      goto done;
  if (signal_length(g, "time") == sg->n)
    sg->time = H5Dopen2(g, "time", H5P_DEFAULT);
  attr_number(g, "fs", &fs);
  if (attr_number(g, "record_every", &every) < 0)
    every = 1.0;
  sg->rate = fs / every;
  rc = 0;
  if (!(sg->rate > 0.0) || !isfinite(sg->rate))
    rc = cli_complain(sg->file,
                      "scene %s has no valid sample rate (attributes fs, "
                      "record_every)",
                      label);
done:
  close_id(g);
  return rc;
}

/* vibro-2: the file and row that hold scene (or the only scene), with its
 * samples and sample interval from /study/table.  -1 after a message. */
static int
find_row_v2(exported *sg, const output_files *of, const char *scene, hid_t *fid, double *interval)
{
  long want = scene ? scene_number(scene) : -1, total = 0;

  for (int f = 0; f < of->n; f++) {
    rows_reader r;
    unsigned char *buf;
    if (rows_open(of->fid[f], "study/table", &r) < 0)
      continue;
    /* rows in blocks of about 1 MiB: one read per column and block, not
     * per row (a row at a time took 0.5 ms a scene: 49 s to reach scene
     * 99999 of a 10^5-scene study) */
    long block = r.row ? (long)((1 << 20) / r.row) : 1;
    block = block < 1 ? 1 : block > r.rows ? (r.rows > 0 ? r.rows : 1) : block;
    buf = malloc((size_t)block * (r.row ? r.row : 8));
    for (long i0 = 0; buf && i0 < r.rows; i0 += block) {
      long n = r.rows - i0 < block ? r.rows - i0 : block;
      if (rows_read(&r, (hsize_t)i0, (hsize_t)n, buf) < 0)
        break;
      for (long k = 0; k < n; k++) {
        const unsigned char *row = buf + (size_t)k * r.row;
        long index = (long)rows_number(&r, row, rows_column(&r, "index"));
        if (index == want || (!scene && r.rows == 1 && of->n == 1)) {
          sg->row = (hsize_t)(i0 + k);
          sg->n = (long)rows_number(&r, row, rows_column(&r, "samples"));
          *interval = rows_number(&r, row, rows_column(&r, "sample_interval"));
          *fid = of->fid[f];
          free(buf);
          rows_close(&r);
          return 0;
        }
      }
    }
    total += r.rows;
    free(buf);
    rows_close(&r);
  }
  if (!scene)
    return cli_complain(sg->file, "%ld scenes: choose one with --scene (valid: 0-%ld)", total,
                        total - 1);
  if (total == 1)
    return cli_complain(sg->file, "no scene %s (valid: 0)", scene);
  return cli_complain(sg->file, "no scene %s (valid: 0-%ld)", scene, total - 1);
}

/* vibro-2 and vibro-3 (formats.h): open the chosen scene's rows of the
 * stacked /signals. */
int
export_open_v2(exported *sg, const output_files *of, const request *rq)
{
  double interval = NAN;
  hid_t fid = H5I_INVALID_HID;
  int pointed = 0;

  if (find_row_v2(sg, of, rq->scene, &fid, &interval) < 0)
    return -1;
  sg->stacked = of->reader->stacked;
  for (int c = 0; c < sg->nsignals; c++) {
    /* bodies/hammer/u and bodies.hammer.u name the same signal */
    hid_t ds = signal_open_stacked(sg->file, fid, sg->paths[c], sg->point, &sg->at[c]);
    if (ds < 0)
      return -1;
    sg->ds[c] = ds;
    pointed |= sg->at[c] >= 0;
    attr_text(ds, "units", sg->units[c], sizeof sg->units[c]);
  }
  if (sg->point >= 0 && !pointed)
    return cli_complain(sg->file,
                        "--point %ld: no signal given has points (--point selects a point "
                        "of a distributed contact's [scene][point][time] signals)",
                        sg->point);
  if (signal_length(fid, "signals/time") >= sg->n)
    sg->time = H5Dopen2(fid, "signals/time", H5P_DEFAULT);
  sg->rate = 1.0 / interval;
  if (!(sg->n >= 0) || !(sg->rate > 0.0) || !isfinite(sg->rate))
    return cli_complain(sg->file,
                        "scene %s has no valid samples or sample_interval in "
                        "/study/table",
                        rq->scene ? rq->scene : "0");
  return 0;
}

/* Write each destination. */
static int
write_all(exported *sg, const request *rq)
{
  int quiet = rq->csv && strcmp(rq->csv, "-") == 0;

  if (rq->csv) {
    const char *inputs[] = {sg->file};
    outfile o;
    FILE *out;
    if (outfile_open(&o, rq->csv, inputs, 1) < 0)
      return -1;
    out = outfile_stream(&o);
    if (outfile_close(&o, !out || export_csv(sg, out) < 0) < 0)
      return -1;
  }
  if (rq->wav &&
      write_sound(sg, rq, rq->wav, SF_FORMAT_WAV, quiet || strcmp(rq->wav, "-") == 0) < 0)
    return -1;
  if (rq->flac &&
      write_sound(sg, rq, rq->flac, SF_FORMAT_FLAC, quiet || strcmp(rq->flac, "-") == 0) < 0)
    return -1;
  return 0;
}

enum {
  OPT_SCENE = 256,
  OPT_SIGNAL,
  OPT_CSV,
  OPT_WAV,
  OPT_FLAC,
  OPT_ENCODING,
  OPT_GAIN,
  OPT_NORMALIZE,
  OPT_DC,
  OPT_HIGHPASS,
  OPT_POINT
};

static const cli_option options[] = {
    {OPT_SCENE, "scene", "N", "the scene (a number, or a scene group's name)"},
    {OPT_SIGNAL, "signal", "PATH", "a signal of the scene (repeat for more columns/channels)"},
    {OPT_CSV, "csv", "FILE", "write CSV: time and the signals"},
    {OPT_WAV, "wav", "FILE", "write a WAV file"},
    {OPT_FLAC, "flac", "FILE", "write a FLAC file"},
    {OPT_ENCODING, "encoding", "E", "sound samples: pcm16 (default), pcm24, float"},
    {OPT_GAIN, "gain", "G", "scale samples by G (full scale is 1)"},
    {OPT_NORMALIZE, "normalize", NULL, "peak of all channels to full scale (default)"},
    {OPT_DC, "dc", NULL, "sound: take each channel's mean away"},
    {OPT_HIGHPASS, "highpass", "HZ", "sound: 2nd-order Butterworth high-pass at HZ"},
    {OPT_POINT, "point", "K", "point K of the distributed contacts' signals given (from 0)"},
    {0, NULL, NULL, NULL},
};

/* Apply one option to the request; 0, or 1 after a message. */
static int
take_option(const cli_command *cmd, int key, const char *value, request *rq, exported *sg)
{
  switch (key) {
  case OPT_SCENE: rq->scene = value; return 0;
  case OPT_CSV: rq->csv = value; return 0;
  case OPT_WAV: rq->wav = value; return 0;
  case OPT_FLAC: rq->flac = value; return 0;
  case OPT_NORMALIZE: return 0;
  case OPT_DC: rq->dc = 1; return 0;
  case OPT_HIGHPASS:
    if (cli_double(value, &rq->highpass) < 0 || !(rq->highpass > 0.0) || isinf(rq->highpass))
      return cli_fail(cmd, "--highpass %s: not a positive frequency in Hz", value);
    return 0;
  case OPT_SIGNAL:
    if (sg->nsignals == CHANNELS_MAX)
      return cli_fail(cmd, "more than %d signals", CHANNELS_MAX);
    while (value[0] == '/')
      value++;
    sg->paths[sg->nsignals++] = value;
    return 0;
  case OPT_POINT:
    if (cli_long(value, 0, 2147483647L, &sg->point) < 0)
      return cli_fail(cmd, "--point %s: not a point index (valid: 0, 1, ...)", value);
    return 0;
  case OPT_GAIN:
    if (cli_double(value, &rq->gain) < 0 || !(rq->gain > 0.0))
      return cli_fail(cmd, "--gain %s: not a positive number", value);
    return 0;
  case OPT_ENCODING:
    for (int i = 0; i < NENCODINGS; i++)
      if (strcmp(value, encodings[i].name) == 0) {
        rq->enc = &encodings[i];
        return 0;
      }
    return cli_fail(cmd, "--encoding %s: unknown (valid: pcm16, pcm24, float)", value);
  default: return 1;
  }
}

/* Whether dest (not "-") has an extension other than those of its format
 * (valid, " "-separated, lower case); a name without one is taken. */
static int
wrong_extension(const char *dest, const char *valid)
{
  const char *base = strrchr(dest, '/'), *dot;
  char ext[16];
  size_t n;

  base = base ? base + 1 : dest;
  dot = strrchr(base, '.');
  if (strcmp(dest, "-") == 0 || !dot || dot == base || (n = strlen(dot + 1)) == 0 ||
      n >= sizeof ext)
    return dot != NULL && dot != base && strcmp(dest, "-") != 0 && strlen(dot + 1) >= sizeof ext;
  for (size_t i = 0; i <= n; i++)
    ext[i] = (char)(dot[1 + i] >= 'A' && dot[1 + i] <= 'Z' ? dot[1 + i] - 'A' + 'a' : dot[1 + i]);
  for (const char *v = valid; *v;) {
    size_t len = strcspn(v, " ");
    if (len == n && strncmp(v, ext, n) == 0)
      return 0;
    v += len + (v[len] == ' ');
  }
  return 1;
}

/* Check the request as a whole; 0, or 1 after a message. */
static int
check_request(const cli_command *cmd, const request *rq, const exported *sg, int normalize)
{
  int to_stdout = 0;

  if (sg->nsignals == 0)
    return cli_fail(cmd, "missing --signal PATH (see vibro help export)");
  if (!rq->csv && !rq->wav && !rq->flac)
    return cli_fail(cmd, "missing --csv FILE, --wav FILE or --flac FILE (see vibro help "
                         "export)");
  if (normalize && !isnan(rq->gain))
    return cli_fail(cmd, "--gain and --normalize exclude each other");
  if ((rq->dc || rq->highpass > 0.0) && !rq->wav && !rq->flac)
    return cli_fail(cmd, "--dc and --highpass apply to sound files (--wav, --flac); a CSV "
                         "holds the signals as recorded");
  if (rq->wav && wrong_extension(rq->wav, "wav wave"))
    return cli_fail(cmd, "--wav %s: writes a WAV file; name it .wav (valid: .wav, .wave, or no "
                         "extension)",
                    rq->wav);
  if (rq->flac && wrong_extension(rq->flac, "flac"))
    return cli_fail(cmd, "--flac %s: writes a FLAC file; name it .flac (valid: .flac, or no "
                         "extension)",
                    rq->flac);
  to_stdout = (rq->csv && strcmp(rq->csv, "-") == 0) + (rq->wav && strcmp(rq->wav, "-") == 0) +
              (rq->flac && strcmp(rq->flac, "-") == 0);
  if (to_stdout > 1)
    return cli_fail(cmd, "only one of --csv, --wav and --flac can write to standard output");
  return 0;
}

/* vibro export */
static int
export_main(const cli_command *cmd, int argc, char **argv)
{
  static const char *const operands[] = {"OUT.h5"};
  request rq = {.enc = &encodings[0], .gain = NAN};
  exported sg = {.time = H5I_INVALID_HID, .point = -1};
  output_files of = {.n = 0};
  cli_args a;
  int key, rc = 1, normalize = 0;

  for (int c = 0; c < CHANNELS_MAX; c++)
    sg.ds[c] = H5I_INVALID_HID;
  cli_begin(&a, cmd, argc, argv);
  while ((key = cli_next(&a)) > 0 && key != 'h') {
    normalize |= key == OPT_NORMALIZE;
    if (take_option(cmd, key, a.value, &rq, &sg)) {
      key = -1;
      break;
    }
  }
  if (key != 0 || cli_operands(&a, 1, operands) < 0 || check_request(cmd, &rq, &sg, normalize)) {
    cli_end(&a);
    return key == 'h' ? 0 : 1;
  }
  sg.file = a.operands[0];
  if (outputs_open_checked(sg.file, &of) == 0 &&
      of.reader->export_open(&sg, &of, &rq) == 0 &&
      write_all(&sg, &rq) == 0)
    rc = 0;
  for (int c = 0; c < sg.nsignals; c++)
    close_id(sg.ds[c]);
  close_id(sg.time);
  outputs_close(&of);
  cli_end(&a);
  return rc;
}

const cli_command cli_export = {
    .name = "export",
    .synopsis = "OUT.h5 [--scene N] --signal PATH [--signal PATH ...] "
                "(--csv FILE | --wav FILE | --flac FILE) [--encoding pcm16|pcm24|float] "
                "[--gain G | --normalize] [--dc] [--highpass HZ]",
    .summary = "recorded signals as CSV, or as the channels of a WAV or FLAC file",
    .description = description,
    .options = options,
    .main = export_main,
};

/*
 * prof_sample_util: what the three profiling samples share and what is not about
 * profiling — loading the classifier of make_sample_model, the vendor dataset procedure,
 * an AI-CPU service thread for asynchronous executions, and plain-C readers for the
 * files of a JOB directory (docs/profiling.md). Each sample keeps its profiling calls in
 * its own file so that the vendor flow it demonstrates can be read top to bottom.
 */
#ifndef PROF_SAMPLE_UTIL_H
#define PROF_SAMPLE_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_prof.h"

/* A failing API call leaves nothing worth checking: report it and stop. */
#define CHECK(call)                                                                              \
    do {                                                                                         \
        svp_acl_error rc_ = (call);                                                              \
        if (rc_ != SVP_ACL_SUCCESS) {                                                            \
            fprintf(stderr, "FAILED %s -> %d: %s\n", #call, rc_, svp_acl_get_recent_err_msg()); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#define SAMPLE_MAX_BUFFERS 16
#define SAMPLE_MAX_LAYERS 64
#define SAMPLE_CLASSES 10
#define SAMPLE_PATH_MAX 4096

/* One layer of classifier.layers.txt, written by make_sample_model from the model it
 * built: the operators a profile of the classifier must contain, known independently of
 * the runtime being profiled. */
typedef struct {
    char name[SVP_ACL_PROF_MAX_OP_NAME_LEN];
    char type[SVP_ACL_PROF_MAX_OP_TYPE_LEN];
    int aicpu; /* 1: runs on the AI-CPU (aicpu.jsonl), 0: on an NPU core (aicore.jsonl) */
} sample_layer_t;

typedef struct {
    uint32_t id;
    svp_acl_mdl_desc *desc;
    void *model_mem; /* the .om image in NPU memory; must outlive the loaded model */
    float *images;   /* dense NCHW test images */
    float *expected; /* SAMPLE_CLASSES probabilities per image */
    size_t num_images;
    sample_layer_t layers[SAMPLE_MAX_LAYERS];
    size_t num_layers, npu_layers, aicpu_layers;
} sample_model_t;

/* One input + output dataset set, built with the vendor procedure (spec §2.2). */
typedef struct {
    svp_acl_mdl_dataset *input;
    svp_acl_mdl_dataset *output;
    void *memory[SAMPLE_MAX_BUFFERS];
    svp_acl_data_buffer *buffers[SAMPLE_MAX_BUFFERS];
    size_t count;
} sample_io_t;

/* Loads <dir>/classifier.om and reads its test data and layer list. */
void sample_model_load(sample_model_t *m, const char *dir);
void sample_model_unload(sample_model_t *m);
/* Index of the layer called `name`, or -1. */
int sample_model_find_layer(const sample_model_t *m, const char *name);

void sample_io_create(const sample_model_t *m, sample_io_t *io);
void sample_io_destroy(sample_io_t *io);
/* Copies test image `image` (modulo the number of images) into input 0 at its stride. */
void sample_io_fill(const sample_model_t *m, sample_io_t *io, size_t image);
/* 1 when output 0 holds the expected probabilities of `image`, else 0. */
int sample_io_check(const sample_model_t *m, const sample_io_t *io, size_t image);

/* A thread serving the AI-CPU layers of asynchronous executions in `ctx`. Start it after a
 * stream exists (svp_acl_ext_process_aicpu_task fails before). */
typedef struct {
    pthread_t thread;
    svp_acl_rt_context ctx;
    int stop;   /* written by the owner, read by the thread (atomics) */
    int errors; /* written by the thread, read after the join */
} sample_aicpu_worker_t;

void sample_aicpu_worker_start(sample_aicpu_worker_t *w, svp_acl_rt_context ctx);
/* Joins the thread; returns the number of unexpected errors it saw. */
int sample_aicpu_worker_stop(sample_aicpu_worker_t *w);

/* Mismatch accounting: a sample goes on after a wrong value (so that it still cleans up
 * and reports everything it found) and exits non-zero at the end. Main thread only. */
extern int g_sample_mismatches;
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void sample_expect(int ok, const char *fmt, ...);

/* ---- files of a JOB directory ---- */

/* `dir`/`name` into `out`; a path that does not fit is fatal. */
void sample_path_join(char *out, size_t size, const char *dir, const char *name);
/* Creates a fresh directory under $TMPDIR (or /tmp) into `buf`. */
void sample_make_temp_dir(char *buf, size_t size, const char *prefix);
/* Removes `path` and everything below it; 0 on success. */
int sample_remove_tree(const char *path);
int sample_path_exists(const char *path);

/* Names of the JOB* directories directly under `root`, in a malloc'ed array. */
typedef struct {
    char **names;
    size_t count;
} sample_name_list_t;
void sample_list_jobs(const char *root, sample_name_list_t *out);
void sample_free_list(sample_name_list_t *list);
/* The JOB directories in `after` that are not in `before`: their number, and the path of
 * the last one in `path` (root/name). */
size_t sample_new_jobs(const char *root, const sample_name_list_t *before, const sample_name_list_t *after,
                       char *path, size_t size);

/* The whole file as a NUL-terminated malloc'ed string, or NULL. */
char *sample_read_text(const char *path);
/* Number of lines (every line must end in '\n', as docs/profiling.md requires; a missing
 * final newline is reported as a mismatch), or -1 if the file cannot be opened. */
long sample_count_lines(const char *path);
/* Calls `fn` for each line (with its '\n'); returns the number of lines, or -1 if the file
 * cannot be opened. */
typedef void (*sample_line_fn)(const char *line, void *arg);
long sample_for_each_line(const char *path, sample_line_fn fn, void *arg);
/* Number of lines containing `needle`, or -1 if the file cannot be opened. */
long sample_count_lines_with(const char *path, const char *needle);
/* The unsigned integer after "key": in `text`; with `section`, only inside the flat object
 * "section": {...} (end_info.json names the files in both "records" and "dropped").
 * Returns 1 and stores it in `*out`, 0 when absent. */
int sample_json_u64(const char *text, const char *section, const char *key, unsigned long long *out);

/* Checks end_info.json of `job`: "complete": true, and for each of the four data files
 * "records" equal to its number of lines and nothing "dropped" (how a reader detects a
 * truncated profile). */
void sample_check_end_info(const char *job);

#endif /* PROF_SAMPLE_UTIL_H */

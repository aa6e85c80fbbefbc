/*
 * Common code of the guide samples (samples/<name>/): logging and error-check macros, the
 * Fashion-MNIST test set, loading an offline model from memory and building its datasets
 * the vendor's way (data inputs, task_buf, work_buf; outputs; spec §2.2).
 */
#ifndef SAMPLE_COMMON_H
#define SAMPLE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_mdl.h"

#define SAMPLE_SUCCESS 0
#define SAMPLE_FAILURE (-1)

#define SAMPLE_CLASS_NUM 10
#define SAMPLE_IMAGE_H 28
#define SAMPLE_IMAGE_W 28
#define SAMPLE_IMAGE_PIXELS (SAMPLE_IMAGE_H * SAMPLE_IMAGE_W)
#define SAMPLE_MAX_BUFFERS 16
#define SAMPLE_DEFAULT_DATASET_DIR "/usr/share/datasets/fashion-mnist"

/* printf-style; C99 without the ##__VA_ARGS__ extension. */
#define SAMPLE_INFO_LOG(...)                  \
    do {                                      \
        fprintf(stdout, "[SAMPLE][INFO] ");   \
        fprintf(stdout, __VA_ARGS__);         \
        fprintf(stdout, "\n");                \
        fflush(stdout);                       \
    } while (0)
#define SAMPLE_ERROR_LOG(...)                                         \
    do {                                                              \
        fprintf(stderr, "[SAMPLE][ERROR] %s:%d: ", __FILE__, __LINE__); \
        fprintf(stderr, __VA_ARGS__);                                 \
        fprintf(stderr, "\n");                                        \
    } while (0)

/* Every svp_acl call: on failure log the call, its error code and the runtime's message,
 * then return SAMPLE_FAILURE from the calling function. */
#define SAMPLE_CHECK_RET(call)                                                                   \
    do {                                                                                         \
        svp_acl_error ret_ = (call);                                                             \
        if (ret_ != SVP_ACL_SUCCESS) {                                                           \
            SAMPLE_ERROR_LOG("%s failed, error code %d: %s", #call, (int)ret_, sample_err_msg()); \
            return SAMPLE_FAILURE;                                                               \
        }                                                                                        \
    } while (0)

/* A condition that a sample checks (a result, or a call returning a pointer/size). */
#define SAMPLE_CHECK_EXPR_RET(expr, ...)   \
    do {                                   \
        if (!(expr)) {                     \
            SAMPLE_ERROR_LOG(__VA_ARGS__); \
            return SAMPLE_FAILURE;         \
        }                                  \
    } while (0)

const char *sample_err_msg(void);

/* The labelled Fashion-MNIST test images (t10k-*.gz), as the model's input: pixel / 255. */
typedef struct {
    size_t count;
    float *pixels; /* count × 784 */
    unsigned char *labels;
} sample_fashion_set;

int sample_fashion_load(const char *dir, size_t count, sample_fashion_set *set);
void sample_fashion_free(sample_fashion_set *set);

/* An offline model read into NPU memory (svp_acl_rt_malloc) and loaded from there. */
typedef struct {
    void *model_mem;
    size_t model_size;
    uint32_t model_id;
    svp_acl_mdl_desc *desc;
    int loaded;
} sample_model;

/* Reads the .om file into NPU memory (not loaded yet). */
int sample_model_read(const char *path, sample_model *model);
/* Reads and loads with svp_acl_mdl_load_from_mem, then fetches the description. */
int sample_model_load(const char *path, sample_model *model);
/* Fetches the description of an already loaded model (model_id set). */
int sample_model_get_desc(sample_model *model);
/* Checks the model is a Fashion-MNIST classifier: input 0 [N,1,28,28] float32, output 0
 * holds ≥ 10 float32 scores per batch. */
int sample_model_check_classifier(const sample_model *model);
int sample_model_unload(sample_model *model);

/* Options for the datasets of one execution. */
typedef struct {
    int cached;              /* svp_acl_rt_malloc_cached (flush/invalidate) instead of malloc */
    size_t batch;            /* data inputs/outputs hold this many batches (dynamic batch); 0 = 1 */
    void *shared_work_buf;   /* non-NULL: use this work_buf (shared by models on one stream) */
    size_t shared_work_size;
    size_t shared_work_stride;
} sample_io_opts;

typedef struct {
    svp_acl_mdl_dataset *input;
    svp_acl_mdl_dataset *output;
    void *mem[SAMPLE_MAX_BUFFERS];
    size_t mem_count;
    svp_acl_data_buffer *buf[SAMPLE_MAX_BUFFERS];
    size_t buf_count;
    int cached;
} sample_io;

int sample_io_create(const sample_model *model, const sample_io_opts *opts, sample_io *io);
int sample_io_destroy(sample_io *io);
/* Image slot k starts at k × (size_by_index / N) where N is dimension 0 of the tensor
 * (1 for a batch-1 model; a dynamic-batch model compiled at batch N holds N images per item). */
/* Writes one 28×28 image into batch slot `slot` of input 0, row by row at the buffer's
 * stride (flushed when cached). */
int sample_io_set_image(const sample_model *model, sample_io *io, size_t slot, const float *pixels);
/* Reads the 10 scores of batch slot `slot` from output 0 (invalidated first when cached). */
int sample_io_get_scores(const sample_model *model, sample_io *io, size_t slot, float scores[SAMPLE_CLASS_NUM]);

int sample_argmax(const float *scores, size_t n);
/* Wall clock in ms (CLOCK_MONOTONIC). */
double sample_now_ms(void);

#endif /* SAMPLE_COMMON_H */

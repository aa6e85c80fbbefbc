/*
 * Common code of the guide samples: see sample_common.h.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime in C99 */
#include "sample_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

const char *sample_err_msg(void)
{
    const char *msg = svp_acl_get_recent_err_msg();
    return msg != NULL ? msg : "";
}

double sample_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Reads `want` bytes after a `header`-byte header of a gzip file (IDX format). */
static unsigned char *sample_read_idx(const char *path, size_t header, size_t want, uint32_t magic)
{
    unsigned char head[16];
    unsigned char *data = NULL;
    gzFile f = gzopen(path, "rb");
    if (f == NULL) {
        SAMPLE_ERROR_LOG("cannot open %s (Debian's dataset-fashion-mnist installs it)", path);
        return NULL;
    }
    if (gzread(f, head, (unsigned)header) != (int)header ||
        ((uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3]) != magic) {
        SAMPLE_ERROR_LOG("%s is not an IDX file with magic %u", path, magic);
        gzclose(f);
        return NULL;
    }
    data = (unsigned char *)malloc(want);
    if (data == NULL || gzread(f, data, (unsigned)want) != (int)want) {
        SAMPLE_ERROR_LOG("%s holds fewer than %zu bytes of data", path, want);
        free(data);
        gzclose(f);
        return NULL;
    }
    gzclose(f);
    return data;
}

int sample_fashion_load(const char *dir, size_t count, sample_fashion_set *set)
{
    char path[1024];
    unsigned char *raw = NULL;
    size_t i;
    memset(set, 0, sizeof(*set));
    snprintf(path, sizeof(path), "%s/t10k-images-idx3-ubyte.gz", dir);
    raw = sample_read_idx(path, 16, count * SAMPLE_IMAGE_PIXELS, 2051);
    if (raw == NULL) {
        return SAMPLE_FAILURE;
    }
    snprintf(path, sizeof(path), "%s/t10k-labels-idx1-ubyte.gz", dir);
    set->labels = sample_read_idx(path, 8, count, 2049);
    set->pixels = (float *)malloc(count * SAMPLE_IMAGE_PIXELS * sizeof(float));
    if (set->labels == NULL || set->pixels == NULL) {
        free(raw);
        sample_fashion_free(set);
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < count * SAMPLE_IMAGE_PIXELS; i++) {
        set->pixels[i] = (float)raw[i] / 255.0f;
    }
    free(raw);
    set->count = count;
    return SAMPLE_SUCCESS;
}

void sample_fashion_free(sample_fashion_set *set)
{
    free(set->pixels);
    free(set->labels);
    memset(set, 0, sizeof(*set));
}

int sample_model_read(const char *path, sample_model *model)
{
    FILE *f = NULL;
    long size;
    memset(model, 0, sizeof(*model));
    f = fopen(path, "rb");
    SAMPLE_CHECK_EXPR_RET(f != NULL, "cannot open %s (script/compile_model.sh compiles it)", path);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        SAMPLE_ERROR_LOG("cannot size %s", path);
        fclose(f);
        return SAMPLE_FAILURE;
    }
    model->model_size = (size_t)size;
    if (svp_acl_rt_malloc(&model->model_mem, model->model_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("svp_acl_rt_malloc of %zu bytes failed: %s", model->model_size, sample_err_msg());
        fclose(f);
        return SAMPLE_FAILURE;
    }
    if (fread(model->model_mem, 1, model->model_size, f) != model->model_size) {
        SAMPLE_ERROR_LOG("short read of %s", path);
        fclose(f);
        return SAMPLE_FAILURE;
    }
    fclose(f);
    return SAMPLE_SUCCESS;
}

int sample_model_get_desc(sample_model *model)
{
    model->desc = svp_acl_mdl_create_desc();
    SAMPLE_CHECK_EXPR_RET(model->desc != NULL, "svp_acl_mdl_create_desc failed: %s", sample_err_msg());
    SAMPLE_CHECK_RET(svp_acl_mdl_get_desc(model->desc, model->model_id));
    return SAMPLE_SUCCESS;
}

int sample_model_load(const char *path, sample_model *model)
{
    if (sample_model_read(path, model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_load_from_mem(model->model_mem, model->model_size, &model->model_id));
    model->loaded = 1;
    return sample_model_get_desc(model);
}

int sample_model_check_classifier(const sample_model *model)
{
    svp_acl_mdl_io_dims dims;
    SAMPLE_CHECK_EXPR_RET(svp_acl_mdl_get_num_inputs(model->desc) == 3,
                          "expected 1 data input + task_buf + work_buf, the model has %zu inputs",
                          svp_acl_mdl_get_num_inputs(model->desc));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_dims(model->desc, 0, &dims));
    SAMPLE_CHECK_EXPR_RET(dims.dim_count == 4 && dims.dims[1] == 1 && dims.dims[2] == SAMPLE_IMAGE_H &&
                              dims.dims[3] == SAMPLE_IMAGE_W,
                          "input 0 is not [N,1,28,28]");
    SAMPLE_CHECK_EXPR_RET(svp_acl_mdl_get_input_data_type(model->desc, 0) == SVP_ACL_FLOAT, "input 0 is not float32");
    SAMPLE_CHECK_EXPR_RET(svp_acl_mdl_get_output_data_type(model->desc, 0) == SVP_ACL_FLOAT, "output 0 is not float32");
    SAMPLE_CHECK_RET(svp_acl_mdl_get_output_dims(model->desc, 0, &dims));
    SAMPLE_CHECK_EXPR_RET(dims.dim_count >= 1 && dims.dims[dims.dim_count - 1] == SAMPLE_CLASS_NUM,
                          "output 0 does not end in %d classes", SAMPLE_CLASS_NUM);
    return SAMPLE_SUCCESS;
}

int sample_model_unload(sample_model *model)
{
    if (model->desc != NULL) {
        SAMPLE_CHECK_RET(svp_acl_mdl_destroy_desc(model->desc));
        model->desc = NULL;
    }
    if (model->loaded) {
        SAMPLE_CHECK_RET(svp_acl_mdl_unload(model->model_id));
        model->loaded = 0;
    }
    if (model->model_mem != NULL) {
        SAMPLE_CHECK_RET(svp_acl_rt_free(model->model_mem));
        model->model_mem = NULL;
    }
    return SAMPLE_SUCCESS;
}

/* Allocates `size` bytes (cached or not), zeroes them, and appends a data buffer to `set`. */
static int sample_io_add(sample_io *io, svp_acl_mdl_dataset *set, void *shared, size_t size, size_t stride)
{
    void *mem = shared;
    svp_acl_data_buffer *buf = NULL;
    SAMPLE_CHECK_EXPR_RET(size > 0 && io->buf_count < SAMPLE_MAX_BUFFERS, "bad buffer size %zu or too many buffers",
                          size);
    if (mem == NULL) {
        if (io->cached) {
            SAMPLE_CHECK_RET(svp_acl_rt_malloc_cached(&mem, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
        } else {
            SAMPLE_CHECK_RET(svp_acl_rt_malloc(&mem, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
        }
        io->mem[io->mem_count++] = mem;
        memset(mem, 0, size);
        if (io->cached) {
            SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(mem, size));
        }
    }
    buf = svp_acl_create_data_buffer(mem, size, stride);
    SAMPLE_CHECK_EXPR_RET(buf != NULL, "svp_acl_create_data_buffer failed: %s", sample_err_msg());
    io->buf[io->buf_count++] = buf;
    SAMPLE_CHECK_RET(svp_acl_mdl_add_dataset_buffer(set, buf));
    return SAMPLE_SUCCESS;
}

int sample_io_create(const sample_model *model, const sample_io_opts *opts, sample_io *io)
{
    const svp_acl_mdl_desc *desc = model->desc;
    size_t num_inputs = svp_acl_mdl_get_num_inputs(desc);
    size_t batch = (opts != NULL && opts->batch > 0) ? opts->batch : 1;
    size_t i;
    memset(io, 0, sizeof(*io));
    io->cached = opts != NULL && opts->cached;
    SAMPLE_CHECK_EXPR_RET(num_inputs >= 2, "the model has %zu inputs, fewer than task_buf + work_buf", num_inputs);
    io->input = svp_acl_mdl_create_dataset();
    io->output = svp_acl_mdl_create_dataset();
    SAMPLE_CHECK_EXPR_RET(io->input != NULL && io->output != NULL, "svp_acl_mdl_create_dataset failed");
    /* data inputs: one batch's size × the batches */
    for (i = 0; i + 2 < num_inputs; i++) {
        if (sample_io_add(io, io->input, NULL, svp_acl_mdl_get_input_size_by_index(desc, i) * batch,
                          svp_acl_mdl_get_input_default_stride(desc, i)) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    /* task_buf (M-2): never shared, not scaled by the batch */
    if (sample_io_add(io, io->input, NULL, svp_acl_mdl_get_input_size_by_index(desc, num_inputs - 2),
                      svp_acl_mdl_get_input_default_stride(desc, num_inputs - 2)) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* work_buf (M-1): own, or the stream's shared one */
    if (opts != NULL && opts->shared_work_buf != NULL) {
        SAMPLE_CHECK_EXPR_RET(opts->shared_work_size >= svp_acl_mdl_get_input_size_by_index(desc, num_inputs - 1),
                              "the shared work_buf (%zu bytes) is smaller than the model's (%zu bytes)",
                              opts->shared_work_size, svp_acl_mdl_get_input_size_by_index(desc, num_inputs - 1));
        if (sample_io_add(io, io->input, opts->shared_work_buf, opts->shared_work_size, opts->shared_work_stride) !=
            SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    } else if (sample_io_add(io, io->input, NULL, svp_acl_mdl_get_input_size_by_index(desc, num_inputs - 1),
                             svp_acl_mdl_get_input_default_stride(desc, num_inputs - 1)) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < svp_acl_mdl_get_num_outputs(desc); i++) {
        if (sample_io_add(io, io->output, NULL, svp_acl_mdl_get_output_size_by_index(desc, i) * batch,
                          svp_acl_mdl_get_output_default_stride(desc, i)) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    return SAMPLE_SUCCESS;
}

int sample_io_destroy(sample_io *io)
{
    size_t i;
    for (i = 0; i < io->buf_count; i++) {
        SAMPLE_CHECK_RET(svp_acl_destroy_data_buffer(io->buf[i]));
    }
    for (i = 0; i < io->mem_count; i++) {
        SAMPLE_CHECK_RET(svp_acl_rt_free(io->mem[i]));
    }
    if (io->input != NULL) {
        SAMPLE_CHECK_RET(svp_acl_mdl_destroy_dataset(io->input));
    }
    if (io->output != NULL) {
        SAMPLE_CHECK_RET(svp_acl_mdl_destroy_dataset(io->output));
    }
    memset(io, 0, sizeof(*io));
    return SAMPLE_SUCCESS;
}

/* Bytes of one image (one row of dimension 0) of a tensor whose one batch is `size` bytes. */
static size_t sample_image_bytes(size_t size, const svp_acl_mdl_io_dims *dims)
{
    return dims->dim_count > 0 && dims->dims[0] > 0 ? size / (size_t)dims->dims[0] : size;
}

int sample_io_set_image(const sample_model *model, sample_io *io, size_t slot, const float *pixels)
{
    svp_acl_data_buffer *buf = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    svp_acl_mdl_io_dims dims;
    size_t batch_size, stride, r;
    unsigned char *base = NULL;
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_dims(model->desc, 0, &dims));
    batch_size = sample_image_bytes(svp_acl_mdl_get_input_size_by_index(model->desc, 0), &dims);
    SAMPLE_CHECK_EXPR_RET(buf != NULL, "the input dataset has no buffer 0");
    stride = svp_acl_get_data_buffer_stride(buf);
    SAMPLE_CHECK_EXPR_RET((slot + 1) * batch_size <= svp_acl_get_data_buffer_size(buf) &&
                              stride >= SAMPLE_IMAGE_W * sizeof(float),
                          "batch slot %zu does not fit input 0", slot);
    base = (unsigned char *)svp_acl_get_data_buffer_addr(buf) + slot * batch_size;
    for (r = 0; r < SAMPLE_IMAGE_H; r++) {
        memcpy(base + r * stride, pixels + r * SAMPLE_IMAGE_W, SAMPLE_IMAGE_W * sizeof(float));
    }
    if (io->cached) {
        /* CPU writes → NPU reads: write the cache lines back to DDR (guide §8.4). */
        SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(base, batch_size));
    }
    return SAMPLE_SUCCESS;
}

int sample_io_get_scores(const sample_model *model, sample_io *io, size_t slot, float scores[SAMPLE_CLASS_NUM])
{
    svp_acl_data_buffer *buf = svp_acl_mdl_get_dataset_buffer(io->output, 0);
    svp_acl_mdl_io_dims dims;
    size_t batch_size;
    const unsigned char *base = NULL;
    SAMPLE_CHECK_RET(svp_acl_mdl_get_output_dims(model->desc, 0, &dims));
    batch_size = sample_image_bytes(svp_acl_mdl_get_output_size_by_index(model->desc, 0), &dims);
    SAMPLE_CHECK_EXPR_RET(buf != NULL, "the output dataset has no buffer 0");
    SAMPLE_CHECK_EXPR_RET((slot + 1) * batch_size <= svp_acl_get_data_buffer_size(buf) &&
                              batch_size >= SAMPLE_CLASS_NUM * sizeof(float),
                          "batch slot %zu does not fit output 0", slot);
    base = (const unsigned char *)svp_acl_get_data_buffer_addr(buf) + slot * batch_size;
    if (io->cached) {
        /* NPU wrote → CPU reads: drop stale cache lines (guide §8.4). */
        SAMPLE_CHECK_RET(svp_acl_rt_mem_invalidate(base, batch_size));
    }
    memcpy(scores, base, SAMPLE_CLASS_NUM * sizeof(float));
    return SAMPLE_SUCCESS;
}

int sample_argmax(const float *scores, size_t n)
{
    size_t k, best = 0;
    for (k = 1; k < n; k++) {
        if (scores[k] > scores[best]) {
            best = k;
        }
    }
    return (int)best;
}

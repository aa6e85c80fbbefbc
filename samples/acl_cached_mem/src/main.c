/*
 * acl_cached_mem — guide §8.4 "memory with the cache attribute": the model image, the inputs,
 * task_buf, work_buf and the outputs in svp_acl_rt_malloc_cached memory. The CPU's writes are
 * pushed to DDR with svp_acl_rt_mem_flush before the NPU reads them, and the NPU's results
 * are made visible with svp_acl_rt_mem_invalidate before the CPU reads them.
 *
 *   acl_cached_mem [MODEL.om] [DATASET_DIR] [COUNT] [stale]
 *
 * Checks: every image's scores from cached memory equal those from uncached
 * (svp_acl_rt_malloc) memory, bit for bit. With "stale" (the software NPU's cache emulation
 * is the worst case: nothing is written back or refetched unless the application asks), it
 * also shows what the two calls are for: an input written without a flush is not what the
 * NPU reads (it computes the previous image), and an output read without an invalidate
 * still shows the previous result. On a board those cases are only sometimes stale.
 * Prints "acl_cached_mem OK" on success.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_cached_mem.h"
#include "sample_common.h"

static sample_fashion_set g_set;

/* The model image in cached memory: written by fread (the CPU), flushed for the NPU. */
static int acl_load_model_cached(const char *path, sample_model *model)
{
    FILE *f = fopen(path, "rb");
    long size;
    memset(model, 0, sizeof(*model));
    SAMPLE_CHECK_EXPR_RET(f != NULL, "cannot open %s", path);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        SAMPLE_ERROR_LOG("cannot size %s", path);
        return SAMPLE_FAILURE;
    }
    model->model_size = (size_t)size;
    if (svp_acl_rt_malloc_cached(&model->model_mem, model->model_size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY) !=
            SVP_ACL_SUCCESS ||
        fread(model->model_mem, 1, model->model_size, f) != model->model_size) {
        fclose(f);
        SAMPLE_ERROR_LOG("cannot read %s into cached memory: %s", path, sample_err_msg());
        return SAMPLE_FAILURE;
    }
    fclose(f);
    SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(model->model_mem, model->model_size));
    SAMPLE_CHECK_RET(svp_acl_mdl_load_from_mem(model->model_mem, model->model_size, &model->model_id));
    model->loaded = 1;
    return sample_model_get_desc(model);
}

static int acl_scores(const sample_model *model, sample_io *io, size_t image, float *scores)
{
    if (sample_io_set_image(model, io, 0, g_set.pixels + image * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io->input, io->output));
    return sample_io_get_scores(model, io, 0, scores);
}

/* Input written without a flush; output read without an invalidate. */
static int acl_show_stale(const sample_model *model, sample_io *io, const float *reference)
{
    svp_acl_data_buffer *in = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    svp_acl_data_buffer *out = svp_acl_mdl_get_dataset_buffer(io->output, 0);
    unsigned char *in_base = NULL;
    size_t stride, r;
    float scores[SAMPLE_CLASS_NUM];
    SAMPLE_CHECK_EXPR_RET(in != NULL && out != NULL, "the datasets lack input 0 or output 0");
    in_base = (unsigned char *)svp_acl_get_data_buffer_addr(in);
    stride = svp_acl_get_data_buffer_stride(in);
    /* image 0, done right */
    if (acl_scores(model, io, 0, scores) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* image 1 written by the CPU but not flushed: the NPU still reads image 0 from DDR */
    for (r = 0; r < SAMPLE_IMAGE_H; r++) {
        memcpy(in_base + r * stride, g_set.pixels + SAMPLE_IMAGE_PIXELS + r * SAMPLE_IMAGE_W,
               SAMPLE_IMAGE_W * sizeof(float));
    }
    SAMPLE_INFO_LOG("executing on an input the CPU wrote but did not flush:");
    SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io->input, io->output));
    if (sample_io_get_scores(model, io, 0, scores) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_EXPR_RET(memcmp(scores, reference, sizeof(scores)) == 0,
                          "without a flush the NPU should have computed image 0 again");
    SAMPLE_INFO_LOG("without svp_acl_rt_mem_flush the NPU computed the previous image");
    /* now flushed: image 1, but read back without an invalidate: still image 0's result */
    SAMPLE_CHECK_RET(svp_acl_rt_mem_flush(svp_acl_get_data_buffer_addr(in), svp_acl_get_data_buffer_size(in)));
    SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io->input, io->output));
    memcpy(scores, svp_acl_get_data_buffer_addr(out), sizeof(scores));
    SAMPLE_CHECK_EXPR_RET(memcmp(scores, reference, sizeof(scores)) == 0,
                          "without an invalidate the CPU should still see image 0's result");
    SAMPLE_INFO_LOG("without svp_acl_rt_mem_invalidate the CPU read the previous result");
    SAMPLE_CHECK_RET(svp_acl_rt_mem_invalidate(svp_acl_get_data_buffer_addr(out), svp_acl_get_data_buffer_size(out)));
    memcpy(scores, svp_acl_get_data_buffer_addr(out), sizeof(scores));
    SAMPLE_CHECK_EXPR_RET(memcmp(scores, reference + SAMPLE_CLASS_NUM, sizeof(scores)) == 0,
                          "after the invalidate the CPU should see image 1's result");
    SAMPLE_INFO_LOG("after svp_acl_rt_mem_invalidate the CPU read image 1's result");
    return SAMPLE_SUCCESS;
}

static int acl_cached_run(const char *model_path, int show_stale, size_t *differ)
{
    sample_model uncached_model, cached_model;
    sample_io plain, cached;
    sample_io_opts opts;
    float *reference = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    float scores[SAMPLE_CLASS_NUM];
    size_t i;
    SAMPLE_CHECK_EXPR_RET(reference != NULL, "out of memory");
    /* the reference: model image and buffers in uncached memory */
    if (sample_model_load(model_path, &uncached_model) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&uncached_model) != SAMPLE_SUCCESS ||
        sample_io_create(&uncached_model, NULL, &plain) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (acl_scores(&uncached_model, &plain, i, reference + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    if (sample_io_destroy(&plain) != SAMPLE_SUCCESS || sample_model_unload(&uncached_model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* everything cached: sample_io_set_image flushes, sample_io_get_scores invalidates */
    if (acl_load_model_cached(model_path, &cached_model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    memset(&opts, 0, sizeof(opts));
    opts.cached = 1;
    if (sample_io_create(&cached_model, &opts, &cached) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (acl_scores(&cached_model, &cached, i, scores) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        if (memcmp(scores, reference + i * SAMPLE_CLASS_NUM, sizeof(scores)) != 0) {
            if ((*differ)++ < 3) {
                SAMPLE_ERROR_LOG("image %zu: cached and uncached memory give different scores", i);
            }
        }
    }
    SAMPLE_INFO_LOG("%zu images from cached memory: %zu differ from uncached memory", g_set.count, *differ);
    if (show_stale && acl_show_stale(&cached_model, &cached, reference) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    free(reference);
    if (sample_io_destroy(&cached) != SAMPLE_SUCCESS || sample_model_unload(&cached_model) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_path = argc > 1 ? argv[1] : ACL_CACHED_MEM_DEFAULT_MODEL;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_CACHED_MEM_DEFAULT_COUNT;
    int show_stale = argc > 4 && strcmp(argv[4], "stale") == 0;
    size_t differ = 0;
    int ret;
    if (count < 2 || sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        SAMPLE_ERROR_LOG("COUNT must be at least 2 and the dataset readable");
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_cached_run(model_path, show_stale, &differ);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    sample_fashion_free(&g_set);
    if (ret != SAMPLE_SUCCESS || differ != 0) {
        return 1;
    }
    printf("acl_cached_mem OK\n");
    return 0;
}

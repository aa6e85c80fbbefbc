/*
 * acl_dynamic_batch — dynamic batch: the Fashion-MNIST LeNet compiled by svp_atc with batch
 * gears 1, 2, 4, 8 (lenet_dynbatch.om). The datasets are allocated once for the largest
 * gear (size_by_index × 8); before each execution svp_acl_mdl_set_dynamic_batch_size, at the
 * index of SVP_ACL_DYNAMIC_TENSOR_NAME, selects the gear.
 *
 *   acl_dynamic_batch [MODEL_DIR] [DATASET_DIR] [COUNT] [MIN_ACCURACY_PERCENT]
 *
 * MODEL_DIR holds lenet.om (batch 1) and lenet_dynbatch.om. svp_atc stores a dynamic-batch
 * model at its largest gear (input [8,1,28,28]) and the runtime runs `batch` items of that
 * tensor one after another, so batch n carries n × 8 images here (n × N in general; the
 * sample reads N from the input dims). COUNT must be a multiple of 8 × N.
 * Checks, for every gear over all COUNT images: each image's scores equal the batch-1
 * model's (within 1e-4, same top-1); the output slots beyond the gear are left untouched;
 * batch 3 (not a gear) is refused; top-1 accuracy against the labels >= MIN_ACCURACY_PERCENT.
 * Prints "acl_dynamic_batch OK" on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_dynamic_batch.h"
#include "sample_common.h"

static sample_fashion_set g_set;

static int acl_batch1_scores(const sample_model *model, float *scores)
{
    sample_io io;
    size_t i;
    if (sample_io_create(model, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    for (i = 0; i < g_set.count; i++) {
        if (sample_io_set_image(model, &io, 0, g_set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io.input, io.output));
        if (sample_io_get_scores(model, &io, 0, scores + i * SAMPLE_CLASS_NUM) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
    }
    return sample_io_destroy(&io);
}

/* Runs every image through batch `gear` (each batch item holding `per_item` images: the
 * model's N); counts images differing from `reference`. */
static int acl_run_gear(const sample_model *model, sample_io *io, size_t dyn_index, size_t gear, size_t per_item,
                        const float *reference, size_t *differ, size_t *correct)
{
    svp_acl_data_buffer *out = svp_acl_mdl_get_dataset_buffer(io->output, 0);
    unsigned char *out_base = NULL;
    size_t out_item = svp_acl_mdl_get_output_size_by_index(model->desc, 0);
    size_t images = gear * per_item; /* per execution */
    float scores[SAMPLE_CLASS_NUM];
    size_t first, slot, b;
    int k;
    SAMPLE_CHECK_EXPR_RET(out != NULL && svp_acl_get_data_buffer_size(out) >= out_item * ACL_DYNAMIC_BATCH_MAX,
                          "output 0 does not hold %d batches", ACL_DYNAMIC_BATCH_MAX);
    out_base = (unsigned char *)svp_acl_get_data_buffer_addr(out);
    SAMPLE_CHECK_EXPR_RET(g_set.count % images == 0, "COUNT %zu is not a multiple of the %zu images of batch %zu",
                          g_set.count, images, gear);
    SAMPLE_CHECK_RET(svp_acl_mdl_set_dynamic_batch_size(model->model_id, io->input, dyn_index, gear));
    for (first = 0; first < g_set.count; first += images) {
        for (slot = 0; slot < images; slot++) {
            if (sample_io_set_image(model, io, slot, g_set.pixels + (first + slot) * SAMPLE_IMAGE_PIXELS) !=
                SAMPLE_SUCCESS) {
                return SAMPLE_FAILURE;
            }
        }
        memset(out_base, 0xff, out_item * ACL_DYNAMIC_BATCH_MAX); /* a NaN pattern in every item */
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io->input, io->output));
        for (slot = 0; slot < images; slot++) {
            const float *want = reference + (first + slot) * SAMPLE_CLASS_NUM;
            if (sample_io_get_scores(model, io, slot, scores) != SAMPLE_SUCCESS) {
                return SAMPLE_FAILURE;
            }
            for (k = 0; k < SAMPLE_CLASS_NUM && fabsf(scores[k] - want[k]) <= ACL_DYNAMIC_BATCH_TOLERANCE; k++) {
            }
            if (k < SAMPLE_CLASS_NUM ||
                sample_argmax(scores, SAMPLE_CLASS_NUM) != sample_argmax(want, SAMPLE_CLASS_NUM)) {
                if ((*differ)++ < 3) {
                    SAMPLE_ERROR_LOG("gear %zu, image %zu: score %d is %g, the batch-1 model gave %g", gear,
                                     first + slot, k, k < SAMPLE_CLASS_NUM ? scores[k] : 0.0,
                                     k < SAMPLE_CLASS_NUM ? want[k] : 0.0);
                }
            }
            if (sample_argmax(scores, SAMPLE_CLASS_NUM) == g_set.labels[first + slot]) {
                (*correct)++;
            }
        }
        for (b = gear * out_item; b < ACL_DYNAMIC_BATCH_MAX * out_item; b++) {
            SAMPLE_CHECK_EXPR_RET(out_base[b] == 0xff, "gear %zu wrote output byte %zu, beyond its %zu batches", gear,
                                  b, gear);
        }
    }
    return SAMPLE_SUCCESS;
}

static int acl_dynamic_batch_run(const char *model_dir, size_t *differ, size_t *correct)
{
    static const size_t gears[ACL_DYNAMIC_BATCH_GEAR_NUM] = ACL_DYNAMIC_BATCH_GEARS;
    char path[1024];
    sample_model fixed, dyn;
    sample_io io;
    sample_io_opts opts;
    size_t dyn_index = 0, g, per_item;
    svp_acl_mdl_io_dims dims;
    float *reference = (float *)calloc(g_set.count * SAMPLE_CLASS_NUM, sizeof(float));
    svp_acl_error ret;
    SAMPLE_CHECK_EXPR_RET(reference != NULL, "out of memory");
    snprintf(path, sizeof(path), "%s/lenet.om", model_dir);
    if (sample_model_load(path, &fixed) != SAMPLE_SUCCESS || sample_model_check_classifier(&fixed) != SAMPLE_SUCCESS ||
        acl_batch1_scores(&fixed, reference) != SAMPLE_SUCCESS || sample_model_unload(&fixed) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    snprintf(path, sizeof(path), "%s/lenet_dynbatch.om", model_dir);
    if (sample_model_load(path, &dyn) != SAMPLE_SUCCESS || sample_model_check_classifier(&dyn) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_index_by_name(dyn.desc, SVP_ACL_DYNAMIC_TENSOR_NAME, &dyn_index));
    memset(&opts, 0, sizeof(opts));
    opts.batch = ACL_DYNAMIC_BATCH_MAX;
    if (sample_io_create(&dyn, &opts, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_INFO_LOG("lenet_dynbatch.om: %s at input index %zu, input 0 %zu bytes per batch", SVP_ACL_DYNAMIC_TENSOR_NAME,
                    dyn_index, svp_acl_mdl_get_input_size_by_index(dyn.desc, 0));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_dims(dyn.desc, 0, &dims));
    per_item = (size_t)dims.dims[0];
    ret = svp_acl_mdl_set_dynamic_batch_size(dyn.model_id, io.input, dyn_index, ACL_DYNAMIC_BATCH_MAX + 1);
    SAMPLE_CHECK_EXPR_RET(ret != SVP_ACL_SUCCESS, "batch %d is above the largest gear, yet it was accepted",
                          ACL_DYNAMIC_BATCH_MAX + 1);
    SAMPLE_INFO_LOG("batch %d (above the largest gear) refused as expected: %d", ACL_DYNAMIC_BATCH_MAX + 1, (int)ret);
    for (g = 0; g < ACL_DYNAMIC_BATCH_GEAR_NUM; g++) {
        size_t before = *differ, right = 0;
        double t0 = sample_now_ms();
        if (acl_run_gear(&dyn, &io, dyn_index, gears[g], per_item, reference, differ, &right) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_INFO_LOG("batch %zu (%zu image(s) per execution): %zu images in %.1f ms, %zu differ from lenet.om, "
                        "top-1 %.2f %%", gears[g], gears[g] * per_item, g_set.count, sample_now_ms() - t0,
                        *differ - before, 100.0 * (double)right / (double)g_set.count);
        *correct += right;
    }
    free(reference);
    if (sample_io_destroy(&io) != SAMPLE_SUCCESS || sample_model_unload(&dyn) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_DYNAMIC_BATCH_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_DYNAMIC_BATCH_DEFAULT_COUNT;
    double min_accuracy = argc > 4 ? atof(argv[4]) : 0.0, accuracy;
    size_t differ = 0, correct = 0;
    int ret;
    if (count == 0) {
        SAMPLE_ERROR_LOG("COUNT must be positive");
        return 2;
    }
    if (sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_dynamic_batch_run(model_dir, &differ, &correct);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    accuracy = 100.0 * (double)correct / (double)(count * ACL_DYNAMIC_BATCH_GEAR_NUM);
    sample_fashion_free(&g_set);
    if (differ != 0 || accuracy < min_accuracy) {
        SAMPLE_ERROR_LOG("%zu results differ from the batch-1 model; top-1 %.2f %% (at least %.2f %% expected)", differ,
                         accuracy, min_accuracy);
        return 1;
    }
    printf("acl_dynamic_batch OK\n");
    return 0;
}

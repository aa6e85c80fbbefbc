/*
 * acl_sync — guide §8.3.1 "single batch + fixed shape + single model, synchronous
 * inference": the Fashion-MNIST LeNet compiled by svp_atc classifies the labelled test
 * images one at a time with svp_acl_mdl_execute.
 *
 *   acl_sync [MODEL.om] [DATASET_DIR] [COUNT] [MIN_ACCURACY_PERCENT]
 *
 * Checks: every call succeeds, the model is a [1,1,28,28] → 10-class classifier, and the
 * top-1 accuracy against the dataset's labels is at least MIN_ACCURACY_PERCENT.
 * Prints "acl_sync OK" on success.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_sync.h"
#include "sample_common.h"

static const char *g_class_names[SAMPLE_CLASS_NUM] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                      "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"};

static int sample_sync_run(const char *model_path, const sample_fashion_set *set, size_t *correct)
{
    sample_model model;
    sample_io io;
    float scores[SAMPLE_CLASS_NUM];
    size_t i;
    int top1;
    if (sample_model_load(model_path, &model) != SAMPLE_SUCCESS ||
        sample_model_check_classifier(&model) != SAMPLE_SUCCESS ||
        sample_io_create(&model, NULL, &io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_INFO_LOG("model %u loaded: %zu inputs (image, task_buf, work_buf), %zu output(s)", model.model_id,
                    svp_acl_mdl_get_num_inputs(model.desc), svp_acl_mdl_get_num_outputs(model.desc));
    *correct = 0;
    for (i = 0; i < set->count; i++) {
        if (sample_io_set_image(&model, &io, 0, set->pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(model.model_id, io.input, io.output));
        if (sample_io_get_scores(&model, &io, 0, scores) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        top1 = sample_argmax(scores, SAMPLE_CLASS_NUM);
        if (top1 == set->labels[i]) {
            (*correct)++;
        }
        if (i < 5) {
            SAMPLE_INFO_LOG("image %zu: top-1 %d (%s), label %d (%s)", i, top1, g_class_names[top1], set->labels[i],
                            g_class_names[set->labels[i]]);
        }
    }
    if (sample_io_destroy(&io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return sample_model_unload(&model);
}

int main(int argc, char *argv[])
{
    const char *model_path = argc > 1 ? argv[1] : ACL_SYNC_DEFAULT_MODEL;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_SYNC_DEFAULT_COUNT;
    double min_accuracy = argc > 4 ? atof(argv[4]) : ACL_SYNC_DEFAULT_MIN_ACCURACY;
    sample_fashion_set set;
    svp_acl_rt_context context = NULL;
    svp_acl_rt_run_mode run_mode;
    size_t correct = 0;
    double accuracy;
    int ret;

    if (count == 0 || sample_fashion_load(dataset_dir, count, &set) != SAMPLE_SUCCESS) {
        SAMPLE_ERROR_LOG("cannot read %zu test images from %s", count, dataset_dir);
        return 1;
    }
    /* 1. init, 2. runtime resources: device, context (the stream is not needed: sync) */
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_rt_create_context(&context, 0) != SVP_ACL_SUCCESS ||
        svp_acl_rt_get_run_mode(&run_mode) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (run_mode != SVP_ACL_DEVICE) {
        SAMPLE_ERROR_LOG("expected the device run mode, got %d", (int)run_mode);
        return 1;
    }
    /* 3. load, 4. execute every image */
    ret = sample_sync_run(model_path, &set, &correct);
    /* 5. release the runtime resources, 6. finalize */
    if (svp_acl_rt_destroy_context(context) != SVP_ACL_SUCCESS || svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS ||
        svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    accuracy = 100.0 * (double)correct / (double)set.count;
    SAMPLE_INFO_LOG("%zu of %zu test images correct: top-1 %.2f %% (at least %.2f %% expected)", correct, set.count,
                    accuracy, min_accuracy);
    sample_fashion_free(&set);
    if (accuracy < min_accuracy) {
        SAMPLE_ERROR_LOG("top-1 accuracy below %.2f %%", min_accuracy);
        return 1;
    }
    printf("acl_sync OK\n");
    return 0;
}

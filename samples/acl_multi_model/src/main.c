/*
 * acl_multi_model — guide §8.3.3 "multi-model inference": the Fashion-MNIST LeNet compiled by
 * svp_atc twice, float (lenet.om) and int8 A8W8 (lenet_int8.om), both loaded
 * (svp_acl_mdl_load_from_mem once per model) and executed synchronously on every image
 * (svp_acl_mdl_execute once per model).
 *
 *   acl_multi_model [MODEL_DIR] [DATASET_DIR] [COUNT] [MIN_AGREEMENT_PERCENT]
 *                   [MIN_ACCURACY_PERCENT]
 *
 * Checks: the two models have distinct ids and descriptions of the same classifier shape;
 * their top-1 answers agree on >= MIN_AGREEMENT_PERCENT of the images (default 95); each
 * model's top-1 accuracy against the labels >= MIN_ACCURACY_PERCENT (default 83).
 * Prints "acl_multi_model OK" on success.
 */
#include <stdlib.h>
#include <string.h>

#include "acl_multi_model.h"
#include "sample_common.h"

static const char *g_model_files[ACL_MULTI_MODEL_NUM] = {"lenet.om", "lenet_int8.om"};

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_MULTI_MODEL_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_MULTI_MODEL_DEFAULT_COUNT;
    double min_agreement = argc > 4 ? atof(argv[4]) : ACL_MULTI_MODEL_DEFAULT_MIN_AGREEMENT;
    double min_accuracy = argc > 5 ? atof(argv[5]) : ACL_MULTI_MODEL_DEFAULT_MIN_ACCURACY;
    sample_fashion_set set;
    sample_model models[ACL_MULTI_MODEL_NUM];
    sample_io ios[ACL_MULTI_MODEL_NUM];
    size_t correct[ACL_MULTI_MODEL_NUM] = {0, 0}, agree = 0, i, m;
    float scores[SAMPLE_CLASS_NUM];
    int top1[ACL_MULTI_MODEL_NUM];
    double agreement, accuracy[ACL_MULTI_MODEL_NUM];
    char path[1024];
    int ok = 1;

    if (count == 0 || sample_fashion_load(dataset_dir, count, &set) != SAMPLE_SUCCESS) {
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    /* load every model, with datasets of its own */
    for (m = 0; m < ACL_MULTI_MODEL_NUM; m++) {
        snprintf(path, sizeof(path), "%s/%s", model_dir, g_model_files[m]);
        if (sample_model_load(path, &models[m]) != SAMPLE_SUCCESS ||
            sample_model_check_classifier(&models[m]) != SAMPLE_SUCCESS ||
            sample_io_create(&models[m], NULL, &ios[m]) != SAMPLE_SUCCESS) {
            return 1;
        }
        SAMPLE_INFO_LOG("%s: model id %u, %zu bytes, work_buf %zu bytes", g_model_files[m], models[m].model_id,
                        models[m].model_size,
                        svp_acl_mdl_get_input_size_by_index(models[m].desc,
                                                            svp_acl_mdl_get_num_inputs(models[m].desc) - 1));
    }
    if (models[0].model_id == models[1].model_id) {
        SAMPLE_ERROR_LOG("both models got id %u", models[0].model_id);
        return 1;
    }
    for (i = 0; i < set.count; i++) {
        for (m = 0; m < ACL_MULTI_MODEL_NUM; m++) {
            if (sample_io_set_image(&models[m], &ios[m], 0, set.pixels + i * SAMPLE_IMAGE_PIXELS) != SAMPLE_SUCCESS) {
                return 1;
            }
            if (svp_acl_mdl_execute(models[m].model_id, ios[m].input, ios[m].output) != SVP_ACL_SUCCESS) {
                SAMPLE_ERROR_LOG("svp_acl_mdl_execute of %s failed: %s", g_model_files[m], sample_err_msg());
                return 1;
            }
            if (sample_io_get_scores(&models[m], &ios[m], 0, scores) != SAMPLE_SUCCESS) {
                return 1;
            }
            top1[m] = sample_argmax(scores, SAMPLE_CLASS_NUM);
            if (top1[m] == set.labels[i]) {
                correct[m]++;
            }
        }
        if (top1[0] == top1[1]) {
            agree++;
        }
    }
    for (m = 0; m < ACL_MULTI_MODEL_NUM; m++) {
        if (sample_io_destroy(&ios[m]) != SAMPLE_SUCCESS || sample_model_unload(&models[m]) != SAMPLE_SUCCESS) {
            return 1;
        }
    }
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    agreement = 100.0 * (double)agree / (double)set.count;
    for (m = 0; m < ACL_MULTI_MODEL_NUM; m++) {
        accuracy[m] = 100.0 * (double)correct[m] / (double)set.count;
        SAMPLE_INFO_LOG("%s: top-1 %.2f %% on %zu test images (at least %.2f %% expected)", g_model_files[m],
                        accuracy[m], set.count, min_accuracy);
        ok = ok && accuracy[m] >= min_accuracy;
    }
    SAMPLE_INFO_LOG("float and int8 agree on %zu of %zu images: %.2f %% (at least %.2f %% expected)", agree, set.count,
                    agreement, min_agreement);
    sample_fashion_free(&set);
    if (!ok || agreement < min_agreement) {
        SAMPLE_ERROR_LOG("agreement or accuracy below the expected value");
        return 1;
    }
    printf("acl_multi_model OK\n");
    return 0;
}

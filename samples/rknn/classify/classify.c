/*
 * An image classifier as the Rockchip model zoo's classification demos run one
 * (examples/mobilenet/cpp, examples/resnet/cpp: init_model, inference on UINT8 NHWC pixels,
 * the top-5 printed), on the public rknn_api.h only, through ../ppocr/rknn_app.c (the
 * normal API, or with ZERO_COPY the zero-copy API). The images come as one raw file of
 * COUNT images of the model's H x W x C pixels (NHWC uint8), the way the zoo's tests feed
 * decoded images; every image's scores are written to OUT as "INDEX TOP1 SCORE0 ...".
 *   rknn_classify MODEL IMAGES.u8 COUNT OUT.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ppocr/rknn_app.h"

/* The `k` best classes of `scores` (n of them), best first. */
static void top_k(const float* scores, int n, int k, int* best) {
    int i, j;
    for (j = 0; j < k; ++j) best[j] = -1;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < k; ++j) {
            if (best[j] < 0 || scores[i] > scores[best[j]]) {
                memmove(best + j + 1, best + j, sizeof(int) * (size_t)(k - j - 1));
                best[j] = i;
                break;
            }
        }
    }
}

int main(int argc, char** argv) {
    rknn_app_context_t app;
    FILE *in = NULL, *out = NULL;
    unsigned char* pixels = NULL;
    float* scores = NULL;
    size_t image_bytes;
    int count, n, i, k, best[5], ret = 1;
    if (argc != 5) {
        printf("usage: %s MODEL IMAGES.u8 COUNT OUT.txt\n", argv[0]);
        return 2;
    }
    count = atoi(argv[3]);
    if (init_model(argv[1], &app) != 0) {
        printf("init_model fail!\n");
        release_model(&app);
        return 1;
    }
    n = (int)app.output_attr.n_elems;
    image_bytes = (size_t)app.model_height * (size_t)app.model_width * (size_t)app.model_channel;
    pixels = (unsigned char*)malloc(image_bytes);
    scores = (float*)malloc(sizeof(float) * (size_t)n);
    in = fopen(argv[2], "rb");
    out = fopen(argv[4], "w");
    if (pixels == NULL || scores == NULL || in == NULL || out == NULL || n < 1) {
        printf("cannot read %s or write %s\n", argv[2], argv[4]);
        goto done;
    }
    for (i = 0; i < count; ++i) {
        if (fread(pixels, 1, image_bytes, in) != image_bytes) {
            printf("%s holds fewer than %d images of %zu bytes\n", argv[2], count, image_bytes);
            goto done;
        }
        if (inference(&app, pixels, scores) != 0) goto done;
        top_k(scores, n, n < 5 ? n : 5, best);
        if (i == 0) {
            printf("--- Top5 of image 0 ---\n");
            for (k = 0; k < (n < 5 ? n : 5); ++k) printf("[%d] score=%.6f\n", best[k], scores[best[k]]);
        }
        fprintf(out, "%d %d", i, best[0]);
        for (k = 0; k < n; ++k) fprintf(out, " %.9g", scores[k]);
        fprintf(out, "\n");
    }
    printf("%d images classified\n", count);
    ret = 0;
done:
    if (in != NULL) fclose(in);
    if (out != NULL) fclose(out);
    free(pixels);
    free(scores);
    release_model(&app);
    return ret;
}

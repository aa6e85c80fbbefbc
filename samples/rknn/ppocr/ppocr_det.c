/*
 * PP-OCR text detection with librknnrt, as the model zoo's ppocr_det demo: the page scaled
 * into the model's input (aspect kept, white padding right and below), one run, the
 * probability map binarised at 0.3, each connected region scored (mean probability >= 0.6
 * kept) and its box grown by the unclip ratio 1.5 (DBNet's post-processing for axis-aligned
 * boxes), printed in page pixels.
 *   rknn_ppocr_det MODEL.rknn PAGE.png [DUMP_DIR]
 * DUMP_DIR receives input.npy (the UINT8 NHWC pixels set) and output.npy (the float map)
 * for the onnxruntime check (samples/rknn/ppocr/check_ppocr.sh).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_utils.h"
#include "rknn_app.h"

#define DET_THRESHOLD 0.3f
#define BOX_THRESHOLD 0.6f
#define UNCLIP_RATIO 1.5f
#define MIN_SIDE 3

/* Connected regions (4-neighbour) of the binarised map; prints each kept box. */
static int find_boxes(const float* prob, int w, int h, float scale, int page_w, int page_h) {
    unsigned char* seen = (unsigned char*)calloc((size_t)w * (size_t)h, 1);
    int* stack = (int*)malloc(sizeof(int) * (size_t)w * (size_t)h);
    int count = 0, start;
    if (seen == NULL || stack == NULL) return -1;
    for (start = 0; start < w * h; ++start) {
        int top = 0, x0 = w, y0 = h, x1 = -1, y1 = -1, pixels = 0;
        double sum = 0.0;
        if (seen[start] || prob[start] <= DET_THRESHOLD) continue;
        seen[start] = 1;
        stack[top++] = start;
        while (top > 0) {
            int p = stack[--top], x = p % w, y = p / w, k;
            const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
            ++pixels;
            sum += prob[p];
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
            for (k = 0; k < 4; ++k) {
                int q = ny[k] * w + nx[k];
                if (nx[k] < 0 || nx[k] >= w || ny[k] < 0 || ny[k] >= h || seen[q] || prob[q] <= DET_THRESHOLD) continue;
                seen[q] = 1;
                stack[top++] = q;
            }
        }
        {
            float bw = (float)(x1 - x0 + 1), bh = (float)(y1 - y0 + 1);
            float grow = bw * bh * UNCLIP_RATIO / (2.0f * (bw + bh));
            int bx0, by0, bx1, by1;
            if (x1 - x0 + 1 < MIN_SIDE || y1 - y0 + 1 < MIN_SIDE || sum / pixels < BOX_THRESHOLD) continue;
            bx0 = (int)floorf(((float)x0 - grow) / scale);
            by0 = (int)floorf(((float)y0 - grow) / scale);
            bx1 = (int)ceilf(((float)x1 + 1.0f + grow) / scale);
            by1 = (int)ceilf(((float)y1 + 1.0f + grow) / scale);
            if (bx0 < 0) bx0 = 0;
            if (by0 < 0) by0 = 0;
            if (bx1 > page_w) bx1 = page_w;
            if (by1 > page_h) by1 = page_h;
            printf("box %d: %d,%d,%d,%d score %.3f\n", count, bx0, by0, bx1, by1, sum / pixels);
            ++count;
        }
    }
    free(seen);
    free(stack);
    return count;
}

int main(int argc, char** argv) {
    rknn_app_context_t app;
    image_buffer_t page;
    unsigned char* input;
    float* prob;
    float scale;
    int rw, rh, boxes, ret = 1;

    if (argc != 3 && argc != 4) {
        printf("usage: %s MODEL.rknn PAGE.png [DUMP_DIR]\n", argv[0]);
        return 2;
    }
    if (read_png_rgb(argv[2], &page) != 0) return 2;
    if (init_model(argv[1], &app) != 0) {
        release_model(&app);
        free_image(&page);
        return 1;
    }
    scale = fminf(1.0f, fminf((float)app.model_width / (float)page.width, (float)app.model_height / (float)page.height));
    rw = (int)((float)page.width * scale + 0.5f);
    rh = (int)((float)page.height * scale + 0.5f);
    printf("page %dx%d scaled by %.6f into the %dx%d input\n", page.width, page.height, scale, app.model_width,
           app.model_height);
    input = (unsigned char*)malloc((size_t)app.model_width * (size_t)app.model_height * 3);
    prob = (float*)malloc(sizeof(float) * app.output_attr.n_elems);
    if (input != NULL && prob != NULL) {
        memset(input, 255, (size_t)app.model_width * (size_t)app.model_height * 3);
        resize_rgb(&page, 0, 0, page.width, page.height, input, rw, rh, app.model_width);
        if (inference(&app, input, prob) == 0) {
            boxes = find_boxes(prob, app.model_width, app.model_height, scale, page.width, page.height);
            printf("boxes: %d\n", boxes);
            ret = boxes < 0;
            if (argc == 4) {
                char path[4096];
                uint32_t in_dims[4];
                memcpy(in_dims, app.input_attr.dims, sizeof in_dims);
                snprintf(path, sizeof path, "%s/input.npy", argv[3]);
                ret |= write_npy(path, "|u1", in_dims, 4, input, app.input_attr.n_elems) != 0;
                snprintf(path, sizeof path, "%s/output.npy", argv[3]);
                ret |= write_npy(path, "<f4", app.output_attr.dims, (int)app.output_attr.n_dims, prob,
                                 sizeof(float) * app.output_attr.n_elems) != 0;
            }
        }
    }
    free(input);
    free(prob);
    release_model(&app);
    free_image(&page);
    return ret;
}

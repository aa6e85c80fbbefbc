/*
 * PP-OCR text recognition with librknnrt, as the model zoo's ppocr_rec demo: each line box
 * of the page cropped, scaled to the model's height (aspect kept, at most its width; the
 * rest padded with grey 127, about 0 after the model's normalisation), one run per line,
 * greedy CTC decoding of the [1, T, classes] probabilities (0 = blank, k = line k of the
 * keys file, the last class a space).
 *   rknn_ppocr_rec MODEL.rknn PAGE.png KEYS.txt X0,Y0,X1,Y1 [...] [--dump DIR]
 * With --dump, DIR receives input_<i>.npy and output_<i>.npy per line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_utils.h"
#include "rknn_app.h"

typedef struct {
    char** keys;
    int count;
    char* text;
} keys_t;

static int read_keys(const char* path, keys_t* keys) {
    FILE* f = fopen(path, "rb");
    long len;
    int i;
    char* p;
    memset(keys, 0, sizeof *keys);
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f != NULL) fclose(f);
        printf("%s: cannot read the keys\n", path);
        return -1;
    }
    keys->text = (char*)malloc((size_t)len + 1);
    if (keys->text == NULL || fread(keys->text, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        return -1;
    }
    fclose(f);
    keys->text[len] = '\0';
    for (p = keys->text; *p; ++p) keys->count += *p == '\n';
    if (len > 0 && keys->text[len - 1] != '\n') ++keys->count; /* a last line without its newline */
    keys->keys = (char**)malloc(sizeof(char*) * ((size_t)keys->count + 1));
    if (keys->keys == NULL) return -1;
    for (i = 0, p = keys->text; i < keys->count; ++i) {
        char* end = strchr(p, '\n');
        if (end == NULL) end = p + strlen(p);
        keys->keys[i] = p;
        *end = '\0';
        if (end > p && end[-1] == '\r') end[-1] = '\0';
        p = end + 1;
    }
    return 0;
}

/* Greedy CTC: the best class per step, repeats merged, blanks dropped. */
static void decode(const float* prob, uint32_t steps, uint32_t classes, const keys_t* keys, char* out, size_t cap) {
    uint32_t t, k, last = 0;
    size_t used = 0;
    out[0] = '\0';
    for (t = 0; t < steps; ++t) {
        const float* row = prob + (size_t)t * classes;
        uint32_t best = 0;
        for (k = 1; k < classes; ++k) {
            if (row[k] > row[best]) best = k;
        }
        if (best != 0 && best != last) {
            const char* s = best <= (uint32_t)keys->count ? keys->keys[best - 1] : " ";
            size_t n = strlen(s);
            if (used + n + 1 < cap) {
                memcpy(out + used, s, n + 1);
                used += n;
            }
        }
        last = best;
    }
}

static int recognise(rknn_app_context_t* app, const image_buffer_t* page, const char* box, const keys_t* keys,
                     const char* dump, int line) {
    int x0, y0, x1, y1, width, ret = 0;
    size_t pixels = (size_t)app->model_width * (size_t)app->model_height * 3;
    unsigned char* input;
    float* prob;
    char text[1024];
    if (sscanf(box, "%d,%d,%d,%d", &x0, &y0, &x1, &y1) != 4 || x0 < 0 || y0 < 0 || x1 > page->width ||
        y1 > page->height || x1 <= x0 || y1 <= y0) {
        printf("box \"%s\" is not X0,Y0,X1,Y1 inside the %dx%d page\n", box, page->width, page->height);
        return -1;
    }
    width = (int)ceilf((float)app->model_height * (float)(x1 - x0) / (float)(y1 - y0));
    if (width > app->model_width) width = app->model_width;
    input = (unsigned char*)malloc(pixels);
    prob = (float*)malloc(sizeof(float) * app->output_attr.n_elems);
    if (input == NULL || prob == NULL) ret = -1;
    if (ret == 0) {
        memset(input, 127, pixels);
        resize_rgb(page, x0, y0, x1, y1, input, width, app->model_height, app->model_width);
        ret = inference(app, input, prob);
    }
    if (ret == 0) {
        decode(prob, app->output_attr.dims[1], app->output_attr.dims[2], keys, text, sizeof text);
        printf("text %d: %s\n", line, text);
    }
    if (ret == 0 && dump != NULL) {
        char path[4096];
        snprintf(path, sizeof path, "%s/input_%d.npy", dump, line);
        ret |= write_npy(path, "|u1", app->input_attr.dims, 4, input, pixels);
        snprintf(path, sizeof path, "%s/output_%d.npy", dump, line);
        ret |= write_npy(path, "<f4", app->output_attr.dims, (int)app->output_attr.n_dims, prob,
                         sizeof(float) * app->output_attr.n_elems);
    }
    free(input);
    free(prob);
    return ret;
}

int main(int argc, char** argv) {
    rknn_app_context_t app;
    image_buffer_t page;
    keys_t keys;
    const char* dump = NULL;
    int i, line = 0, ret = 0;

    if (argc >= 7 && strcmp(argv[argc - 2], "--dump") == 0) {
        dump = argv[argc - 1];
        argc -= 2;
    }
    if (argc < 5) {
        printf("usage: %s MODEL.rknn PAGE.png KEYS.txt X0,Y0,X1,Y1 [...] [--dump DIR]\n", argv[0]);
        return 2;
    }
    if (read_png_rgb(argv[2], &page) != 0) return 2;
    if (read_keys(argv[3], &keys) != 0) {
        free_image(&page);
        return 2;
    }
    if (init_model(argv[1], &app) != 0 || app.output_attr.n_dims != 3 ||
        app.output_attr.dims[2] != (uint32_t)keys.count + 2) {
        printf("the model's output is not [1, T, %d] (blank, the keys, space)\n", keys.count + 2);
        ret = 1;
    }
    for (i = 4; ret == 0 && i < argc; ++i) ret = recognise(&app, &page, argv[i], &keys, dump, line++) != 0;
    release_model(&app);
    free_image(&page);
    free(keys.keys);
    free(keys.text);
    return ret;
}

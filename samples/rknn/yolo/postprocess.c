#include "postprocess.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The anchors of YOLOv5 at strides 8, 16, 32 (the zoo's anchors_yolov5.txt). */
static const int anchor[YOLO_LEVELS][6] = {
    {10, 13, 16, 30, 33, 23}, {30, 61, 62, 45, 59, 119}, {116, 90, 156, 198, 373, 326}};

#define MAX_CANDIDATES 65536

typedef struct {
    float box[4]; /* x, y, w, h in input pixels */
    float score;
    int cls;
    int index; /* order of discovery: ties keep it (a stable sort, as std::sort is not) */
} candidate_t;

/* The zoo's clamp: in the model input's pixels, before the letterbox scale is undone. */
static float clamp_f(float v, int hi) { return v < 0.0f ? 0.0f : (v > (float)hi ? (float)hi : v); }

static int8_t qnt_f32_to_affine(float f32, int32_t zp, float scale) {
    float dst = f32 / scale + (float)zp;
    float r = dst <= -128.0f ? -128.0f : (dst >= 127.0f ? 127.0f : dst);
    return (int8_t)r;
}

static float value(const yolo_output_t* o, size_t i) {
    if (o->is_quant) return ((float)((const int8_t*)o->data)[i] - (float)o->zp) * o->scale;
    return ((const float*)o->data)[i];
}

/* Objectness passes the threshold: in the int8 domain for int8 outputs, as the zoo compares. */
static int passes(const yolo_output_t* o, size_t i, int8_t thres_i8) {
    if (o->is_quant) return ((const int8_t*)o->data)[i] >= thres_i8;
    return ((const float*)o->data)[i] >= BOX_THRESH;
}

static int class_passes(const yolo_output_t* o, size_t i, int8_t thres_i8) {
    if (o->is_quant) return ((const int8_t*)o->data)[i] > thres_i8;
    return ((const float*)o->data)[i] > BOX_THRESH;
}

static int process_level(const yolo_output_t* o, const int* anchors, int stride, candidate_t* cand, int count) {
    const size_t grid_len = (size_t)o->grid_h * (size_t)o->grid_w;
    const int8_t thres_i8 = o->is_quant ? qnt_f32_to_affine(BOX_THRESH, o->zp, o->scale) : 0;
    int a, i, j, k;
    for (a = 0; a < 3; ++a) {
        for (i = 0; i < o->grid_h; ++i) {
            for (j = 0; j < o->grid_w; ++j) {
                const size_t base = (size_t)a * (5 + OBJ_CLASS_NUM) * grid_len + (size_t)i * o->grid_w + (size_t)j;
                float box_conf, best, x, y, w, h;
                int best_id = 0;
                if (!passes(o, base + 4 * grid_len, thres_i8)) continue;
                box_conf = value(o, base + 4 * grid_len);
                best = value(o, base + 5 * grid_len);
                for (k = 1; k < OBJ_CLASS_NUM; ++k) {
                    float p = value(o, base + (5 + (size_t)k) * grid_len);
                    if (p > best) {
                        best = p;
                        best_id = k;
                    }
                }
                /* The zoo keeps a cell whose best class probability itself passes (strictly, in
                 * the int8 domain for int8 outputs); the score, their product, may be lower. */
                if (!class_passes(o, base + (5 + (size_t)best_id) * grid_len, thres_i8) || count >= MAX_CANDIDATES) {
                    continue;
                }
                x = value(o, base) * 2.0f - 0.5f;
                y = value(o, base + grid_len) * 2.0f - 0.5f;
                w = value(o, base + 2 * grid_len) * 2.0f;
                h = value(o, base + 3 * grid_len) * 2.0f;
                cand[count].box[0] = (x + (float)j) * (float)stride;
                cand[count].box[1] = (y + (float)i) * (float)stride;
                cand[count].box[2] = w * w * (float)anchors[a * 2];
                cand[count].box[3] = h * h * (float)anchors[a * 2 + 1];
                cand[count].box[0] -= cand[count].box[2] / 2.0f;
                cand[count].box[1] -= cand[count].box[3] / 2.0f;
                cand[count].score = best * box_conf;
                cand[count].cls = best_id;
                cand[count].index = count;
                ++count;
            }
        }
    }
    return count;
}

static int by_score(const void* pa, const void* pb) {
    const candidate_t* a = (const candidate_t*)pa;
    const candidate_t* b = (const candidate_t*)pb;
    if (a->score != b->score) return a->score > b->score ? -1 : 1;
    return a->index - b->index;
}

/* The zoo's CalculateOverlap: boxes as [x0, y0, x1, y1] with inclusive pixel ends (+1). */
static float overlap(const float* a, const float* b) {
    float w = fmaxf(0.0f, fminf(a[0] + a[2], b[0] + b[2]) - fmaxf(a[0], b[0]) + 1.0f);
    float h = fmaxf(0.0f, fminf(a[1] + a[3], b[1] + b[3]) - fmaxf(a[1], b[1]) + 1.0f);
    float i = w * h;
    float u = (a[2] + 1.0f) * (a[3] + 1.0f) + (b[2] + 1.0f) * (b[3] + 1.0f) - i;
    return u <= 0.0f ? 0.0f : i / u;
}

int post_process(const yolo_output_t outputs[YOLO_LEVELS], int model_w, int model_h, const letterbox_t* lb,
                 int img_w, int img_h, object_detect_result_list* od_results) {
    candidate_t* cand = (candidate_t*)malloc(sizeof(candidate_t) * MAX_CANDIDATES);
    unsigned char* removed;
    int count = 0, level, i, j;
    (void)img_w; /* the zoo clamps to the model input, not to the image (see clamp_f) */
    (void)img_h;
    memset(od_results, 0, sizeof *od_results);
    if (cand == NULL) return -1;
    for (level = 0; level < YOLO_LEVELS; ++level) {
        count = process_level(&outputs[level], anchor[level], 8 << level, cand, count);
    }
    qsort(cand, (size_t)count, sizeof *cand, by_score);
    removed = (unsigned char*)calloc((size_t)count + 1, 1);
    if (removed == NULL) {
        free(cand);
        return -1;
    }
    /* NMS per class over the score order (the zoo's nms() for each class present). */
    for (i = 0; i < count; ++i) {
        if (removed[i]) continue;
        for (j = i + 1; j < count; ++j) {
            if (!removed[j] && cand[j].cls == cand[i].cls && overlap(cand[i].box, cand[j].box) > NMS_THRESH) {
                removed[j] = 1;
            }
        }
    }
    for (i = 0; i < count && od_results->count < OBJ_NUMB_MAX_SIZE; ++i) {
        object_detect_result* r;
        if (removed[i]) continue;
        r = &od_results->results[od_results->count++];
        r->box.left = (int)(clamp_f(cand[i].box[0] - (float)lb->x_pad, model_w) / lb->scale);
        r->box.top = (int)(clamp_f(cand[i].box[1] - (float)lb->y_pad, model_h) / lb->scale);
        r->box.right = (int)(clamp_f(cand[i].box[0] + cand[i].box[2] - (float)lb->x_pad, model_w) / lb->scale);
        r->box.bottom = (int)(clamp_f(cand[i].box[1] + cand[i].box[3] - (float)lb->y_pad, model_h) / lb->scale);
        r->prop = cand[i].score;
        r->cls_id = cand[i].cls;
    }
    free(removed);
    free(cand);
    return 0;
}

/*
 * acl_dynamic_aipp — dynamic AIPP (guide 8.3.4): a camera's YUV420SP frames go to the
 * model as they are, and the NPU's image preprocessing (AIPP) turns the part of each frame
 * that holds the object into the network's input. The parameters change with every frame,
 * so they are set at run time: svp_acl_mdl_create_aipp, the set_aipp_* setters and
 * svp_acl_mdl_set_input_aipp before each execution.
 *
 *   acl_dynamic_aipp [MODEL_DIR] [DATASET_DIR] [COUNT] [MIN_TOP1]
 *
 * MODEL_DIR holds lenet.om (the float Fashion-MNIST LeNet) and lenet_rgb_aipp.om (the same
 * net with a colour input, first layer = the luma of R, G, B, compiled by svp_atc with
 * --insert_op_conf=script/aipp_dynamic.cfg: dynamic AIPP, sources up to 720x576).
 *
 * For each of the first COUNT test images a 720x576 NV12 frame is generated (data/README.md):
 * the image's 24x24 centre magnified s = 3, 4, 5 times at a position that changes per frame,
 * tinted, on a textured background. The AIPP parameters of that frame, in the SVP board's
 * stage order (docs/aipp.md §2.1: crop -> CSC -> padding -> resize -> DTC):
 *   - source YUV420SP_U8 720x576;
 *   - crop the 24s x 24s box of the garment;
 *   - CSC BT.601 video range YUV -> RGB;
 *   - constant padding 2s on every side (the black margin of a 28x28 Fashion-MNIST image);
 *   - bilinear resize (scf) of the *padded* crop, 28s x 28s -> 28x28;
 *   - DTC x / 255 (var_reci), the LeNet's input range.
 * Checks:
 *   - the model describes input 0 as dynamic-AIPP data attached to the parameter input
 *     SVP_ACL_DYNAMIC_AIPP_NAME;
 *   - the rule is enforced: an scf input equal to the crop (the Ascend documentation's
 *     reading) while padding is on is refused with a message naming the padded crop size;
 *   - each frame's scores equal lenet.om's on the same preprocessing computed on the host
 *     from the frame (the arithmetic of docs/aipp.md §2.2, written out below), within 1e-3,
 *     with the same top-1;
 *   - top-1 against the labels >= MIN_TOP1 % (default 78: 81.5 % on the first 200 frames,
 *     where lenet.om gets 87 % of the plain images right; the framing replaces each image's
 *     outer 2-pixel ring by the black padding, which costs the garments that reach the
 *     border).
 * Prints "acl_dynamic_aipp OK" on success.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "acl_dynamic_aipp.h"
#include "sample_common.h"

#define FRAME_W ACL_DYNAMIC_AIPP_FRAME_W
#define FRAME_H ACL_DYNAMIC_AIPP_FRAME_H
#define FRAME_BYTES (FRAME_W * FRAME_H * 3 / 2)

static sample_fashion_set g_set;
static const int g_csc[3][3] = {ACL_DYNAMIC_AIPP_CSC_R, ACL_DYNAMIC_AIPP_CSC_G, ACL_DYNAMIC_AIPP_CSC_B};

/* Where the garment of one frame is, as a detector would report it. */
typedef struct {
    int x, y;  /* top-left corner in the frame (even: 4:2:0 chroma is shared by 2x2 pixels) */
    int scale; /* each image pixel is scale x scale frame pixels */
} acl_box;

static int acl_box_size(const acl_box *box)
{
    return ACL_DYNAMIC_AIPP_OBJECT * box->scale;
}

static int acl_pad_size(const acl_box *box)
{
    return ACL_DYNAMIC_AIPP_MARGIN * box->scale;
}

/* A small deterministic generator (the frames must be the same on every run). */
static unsigned acl_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fffu;
}

static unsigned char acl_clamp_u8(int v)
{
    return (unsigned char)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

/* Frame `i`: background, then test image i's 24x24 centre magnified into `box`. */
static void acl_make_frame(size_t i, unsigned char *frame, acl_box *box)
{
    unsigned char *uv = frame + FRAME_W * FRAME_H;
    unsigned state = (unsigned)i * 2654435761u + 1u;
    const float *image = g_set.pixels + i * SAMPLE_IMAGE_PIXELS;
    int x, y, side, du, dv;
    for (y = 0; y < FRAME_H; y++) {
        for (x = 0; x < FRAME_W; x++) {
            const int noise = (int)(acl_rand(&state) % 17) - 8;
            frame[y * FRAME_W + x] = acl_clamp_u8(60 + x * 80 / FRAME_W + y * 40 / FRAME_H + noise);
        }
    }
    for (y = 0; y < FRAME_H / 2; y++) {
        for (x = 0; x < FRAME_W / 2; x++) {
            uv[y * FRAME_W + 2 * x] = (unsigned char)(100 + x * 56 / (FRAME_W / 2));     /* U */
            uv[y * FRAME_W + 2 * x + 1] = (unsigned char)(150 - y * 44 / (FRAME_H / 2)); /* V */
        }
    }
    box->scale = ACL_DYNAMIC_AIPP_SCALE_MIN + (int)(i % (ACL_DYNAMIC_AIPP_SCALE_MAX - ACL_DYNAMIC_AIPP_SCALE_MIN + 1));
    side = acl_box_size(box);
    box->x = 2 * (int)((i * 97u) % (size_t)((FRAME_W - side) / 2));
    box->y = 2 * (int)((i * 61u) % (size_t)((FRAME_H - side) / 2));
    for (y = 0; y < side; y++) {
        for (x = 0; x < side; x++) {
            const int r = ACL_DYNAMIC_AIPP_MARGIN + y / box->scale, c = ACL_DYNAMIC_AIPP_MARGIN + x / box->scale;
            const int p = (int)lrintf(image[r * SAMPLE_IMAGE_W + c] * 255.0f);
            frame[(box->y + y) * FRAME_W + box->x + x] = (unsigned char)(16 + (p * 219 + 127) / 255);
        }
    }
    /* a colour per garment: U and V offsets of -20..20 */
    du = (int)((i * 37u) % 41u) - 20;
    dv = (int)((i * 53u) % 41u) - 20;
    for (y = box->y / 2; y < (box->y + side) / 2; y++) {
        for (x = box->x / 2; x < (box->x + side) / 2; x++) {
            uv[y * FRAME_W + 2 * x] = (unsigned char)(128 + du);
            uv[y * FRAME_W + 2 * x + 1] = (unsigned char)(128 + dv);
        }
    }
}

/* Sets this frame's AIPP parameters (batch 0) on `aipp`. The setters only fill the object;
 * svp_acl_mdl_set_input_aipp checks them together and writes them into the model's
 * parameter input. `scf_in` is the resize input the caller claims (the padded crop on the
 * board). */
static int acl_set_aipp(svp_acl_mdl_aipp *aipp, const acl_box *box, int scf_in)
{
    const int side = acl_box_size(box), pad = acl_pad_size(box);
    const float reci = 1.0f / 255.0f;
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_input_format(aipp, SVP_ACL_YUV420SP_U8));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_src_image_size(aipp, FRAME_W, FRAME_H));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_csc_params(aipp, 1, (int16_t)g_csc[0][0], (int16_t)g_csc[0][1],
                                                     (int16_t)g_csc[0][2], (int16_t)g_csc[1][0], (int16_t)g_csc[1][1],
                                                     (int16_t)g_csc[1][2], (int16_t)g_csc[2][0], (int16_t)g_csc[2][1],
                                                     (int16_t)g_csc[2][2], 0, 0, 0, 16, 128, 128));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_crop_params(aipp, 1, box->x, box->y, side, side, 0));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_padding_params(aipp, AIPP_PADDING_SWITCH_CONSTANT, pad, pad, pad, pad, 0));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_scf_params(aipp, AIPP_RESIZE_SWITCH_BILINEAR, scf_in, scf_in, SAMPLE_IMAGE_W,
                                                     SAMPLE_IMAGE_H, 0));
    SAMPLE_CHECK_RET(svp_acl_mdl_set_aipp_pixel_var_reci(aipp, reci, reci, reci, reci, 0));
    return SAMPLE_SUCCESS;
}

/* ---- The host reference: docs/aipp.md §2.2 for this configuration, written out. ---- */

/* floor(v / 1024): the CSC's arithmetic shift, without relying on >> of a negative int */
static int acl_floor_q10(int v)
{
    return v >= 0 ? v / 1024 : -((-v + 1023) / 1024);
}

/* Pixel (py, px) of the padded crop after CSC: channel c of R, G, B (0 in the padding). */
static int acl_padded_pixel(const unsigned char *frame, const acl_box *box, int py, int px, int c)
{
    const int pad = acl_pad_size(box), side = acl_box_size(box);
    const int cy = py - pad, cx = px - pad;
    const unsigned char *uv = frame + FRAME_W * FRAME_H;
    int fy, fx, yuv[3], j, sum = 512;
    if (cy < 0 || cy >= side || cx < 0 || cx >= side) {
        return 0; /* constant padding: pixel value 0 in every channel */
    }
    fy = box->y + cy;
    fx = box->x + cx;
    yuv[0] = frame[fy * FRAME_W + fx] - 16;
    yuv[1] = uv[(fy / 2) * FRAME_W + (fx / 2) * 2] - 128;
    yuv[2] = uv[(fy / 2) * FRAME_W + (fx / 2) * 2 + 1] - 128;
    for (j = 0; j < 3; j++) {
        sum += g_csc[c][j] * yuv[j];
    }
    return acl_clamp_u8(acl_floor_q10(sum));
}

/* Bilinear source positions of output index i (OpenCV INTER_LINEAR geometry, Q11 weight). */
static void acl_axis(int i, int in, int out, int *i0, int *i1, int *w)
{
    const float f = (float)((i + 0.5) * ((double)in / out) - 0.5);
    int s = (int)floorf(f);
    float frac = f - (float)s;
    if (s < 0) {
        s = 0;
        frac = 0;
    }
    if (s >= in - 1) {
        s = in - 1;
        frac = 0;
    }
    *i0 = s;
    *i1 = s + 1 < in ? s + 1 : in - 1;
    *w = (int)lrintf(frac * 2048.0f);
}

/* The 28x28 image the LeNet sees: AIPP's R, G, B / 255 combined as lenet_rgb's first layer
 * combines them (the luma), ready for lenet.om. */
static void acl_expected_input(const unsigned char *frame, const acl_box *box, float *out)
{
    const int in = acl_box_size(box) + 2 * acl_pad_size(box);
    int oy, ox, c, y0, y1, wy, x0, x1, wx;
    for (oy = 0; oy < SAMPLE_IMAGE_H; oy++) {
        acl_axis(oy, in, SAMPLE_IMAGE_H, &y0, &y1, &wy);
        for (ox = 0; ox < SAMPLE_IMAGE_W; ox++) {
            float rgb[3];
            acl_axis(ox, in, SAMPLE_IMAGE_W, &x0, &x1, &wx);
            for (c = 0; c < 3; c++) {
                /* the four neighbours: a b on row y0, d0 d1 on row y1 */
                const long long a = acl_padded_pixel(frame, box, y0, x0, c);
                const long long b = acl_padded_pixel(frame, box, y0, x1, c);
                const long long d0 = acl_padded_pixel(frame, box, y1, x0, c);
                const long long d1 = acl_padded_pixel(frame, box, y1, x1, c);
                const long long v = ((a * (2048 - wx) + b * wx) * (2048 - wy) + (d0 * (2048 - wx) + d1 * wx) * wy +
                                     (1LL << 21)) >> 22;
                rgb[c] = (float)v * (1.0f / 255.0f);
            }
            out[oy * SAMPLE_IMAGE_W + ox] = ACL_DYNAMIC_AIPP_LUMA_R * rgb[0] + ACL_DYNAMIC_AIPP_LUMA_G * rgb[1] +
                                            ACL_DYNAMIC_AIPP_LUMA_B * rgb[2];
        }
    }
}

/* ---- The application ---- */

/* Checks the compiled model: input 0 is dynamic-AIPP data whose parameters go to the input
 * named SVP_ACL_DYNAMIC_AIPP_NAME, and it holds a whole 720x576 NV12 frame. */
static int acl_check_model(const sample_model *model, size_t *param_index)
{
    svp_acl_mdl_aipp_type type = SVP_ACL_DATA_WITHOUT_AIPP;
    size_t attached = 0;
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_index_by_name(model->desc, SVP_ACL_DYNAMIC_AIPP_NAME, param_index));
    SAMPLE_CHECK_RET(svp_acl_mdl_get_input_aipp_type(model->model_id, 0, &type, &attached));
    SAMPLE_CHECK_EXPR_RET(type == SVP_ACL_DATA_WITH_DYNAMIC_AIPP && attached == *param_index,
                          "input 0 is not dynamic-AIPP data attached to input %zu (type %d, attached %zu)",
                          *param_index, (int)type, attached);
    SAMPLE_CHECK_EXPR_RET(svp_acl_mdl_get_input_size_by_index(model->desc, 0) >= FRAME_BYTES,
                          "input 0 (%zu bytes) cannot hold a %dx%d YUV420SP frame",
                          svp_acl_mdl_get_input_size_by_index(model->desc, 0), FRAME_W, FRAME_H);
    SAMPLE_INFO_LOG("lenet_rgb_aipp.om: input 0 takes raw frames (up to %zu bytes), AIPP parameters in input %zu (%s)",
                    svp_acl_mdl_get_input_size_by_index(model->desc, 0), *param_index, SVP_ACL_DYNAMIC_AIPP_NAME);
    return SAMPLE_SUCCESS;
}

/* The board resizes the padded crop: claiming the crop size as the scf input while padding
 * is on must be refused, and the message must say what the resize stage reads. */
static int acl_check_rule(const sample_model *model, sample_io *io, svp_acl_mdl_aipp *aipp, size_t param_index)
{
    acl_box box;
    svp_acl_error ret;
    const char *msg;
    box.x = 0;
    box.y = 0;
    box.scale = ACL_DYNAMIC_AIPP_SCALE_MIN;
    if (acl_set_aipp(aipp, &box, acl_box_size(&box)) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    ret = svp_acl_mdl_set_input_aipp(model->model_id, io->input, param_index, aipp);
    msg = sample_err_msg();
    SAMPLE_CHECK_EXPR_RET(ret == SVP_ACL_ERROR_INVALID_PARAM && strstr(msg, "padded crop") != NULL,
                          "an scf input equal to the crop with padding on: error %d, \"%s\" (expected a refusal "
                          "naming the padded crop)", (int)ret, msg);
    SAMPLE_INFO_LOG("scf input = crop size with padding refused as expected: %s", msg);
    return SAMPLE_SUCCESS;
}

/* One frame through the AIPP model: set the parameters, refresh input 0's size and stride
 * (they describe the configured source now), copy the frame row by row, execute. */
static int acl_run_frame(const sample_model *model, sample_io *io, svp_acl_mdl_aipp *aipp, size_t param_index,
                         const unsigned char *frame, const acl_box *box, float scores[SAMPLE_CLASS_NUM])
{
    svp_acl_data_buffer *in = svp_acl_mdl_get_dataset_buffer(io->input, 0);
    unsigned char *dst = NULL;
    size_t size, stride, r;
    SAMPLE_CHECK_EXPR_RET(in != NULL, "the input dataset has no buffer 0");
    if (acl_set_aipp(aipp, box, acl_box_size(box) + 2 * acl_pad_size(box)) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_set_input_aipp(model->model_id, io->input, param_index, aipp));
    size = svp_acl_mdl_get_input_size_by_index(model->desc, 0);
    stride = svp_acl_mdl_get_input_default_stride(model->desc, 0);
    dst = (unsigned char *)svp_acl_get_data_buffer_addr(in);
    SAMPLE_CHECK_EXPR_RET(stride >= FRAME_W && size >= stride * FRAME_H * 3 / 2, "input 0: %zu bytes, stride %zu", size,
                          stride);
    SAMPLE_CHECK_RET(svp_acl_update_data_buffer(in, dst, size, stride));
    for (r = 0; r < FRAME_H * 3 / 2; r++) { /* Y rows, then UV rows */
        memcpy(dst + r * stride, frame + r * FRAME_W, FRAME_W);
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_execute(model->model_id, io->input, io->output));
    return sample_io_get_scores(model, io, 0, scores);
}

static int acl_dynamic_aipp_run(const char *model_dir, size_t *differ, size_t *correct)
{
    char path[1024];
    sample_model lenet, rgb;
    sample_io lenet_io, rgb_io;
    size_t param_index = 0, i;
    unsigned char *frame = (unsigned char *)malloc(FRAME_BYTES);
    float input[SAMPLE_IMAGE_PIXELS], want[SAMPLE_CLASS_NUM], got[SAMPLE_CLASS_NUM];
    svp_acl_mdl_aipp *aipp = NULL;
    acl_box box;
    int c;
    SAMPLE_CHECK_EXPR_RET(frame != NULL, "out of memory");
    memset(&lenet, 0, sizeof(lenet));
    memset(&rgb, 0, sizeof(rgb));
    snprintf(path, sizeof(path), "%s/lenet.om", model_dir);
    if (sample_model_load(path, &lenet) != SAMPLE_SUCCESS || sample_model_check_classifier(&lenet) != SAMPLE_SUCCESS ||
        sample_io_create(&lenet, NULL, &lenet_io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    snprintf(path, sizeof(path), "%s/lenet_rgb_aipp.om", model_dir);
    if (sample_model_load(path, &rgb) != SAMPLE_SUCCESS || acl_check_model(&rgb, &param_index) != SAMPLE_SUCCESS ||
        sample_io_create(&rgb, NULL, &rgb_io) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    /* One parameter object (batch 1) for the whole run, refilled for every frame. */
    aipp = svp_acl_mdl_create_aipp(1);
    SAMPLE_CHECK_EXPR_RET(aipp != NULL, "svp_acl_mdl_create_aipp failed: %s", sample_err_msg());
    if (acl_check_rule(&rgb, &rgb_io, aipp, param_index) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }

    for (i = 0; i < g_set.count; i++) {
        acl_make_frame(i, frame, &box);
        if (acl_run_frame(&rgb, &rgb_io, aipp, param_index, frame, &box, got) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        /* the reference: the same preprocessing on the host, then the plain LeNet */
        acl_expected_input(frame, &box, input);
        if (sample_io_set_image(&lenet, &lenet_io, 0, input) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        SAMPLE_CHECK_RET(svp_acl_mdl_execute(lenet.model_id, lenet_io.input, lenet_io.output));
        if (sample_io_get_scores(&lenet, &lenet_io, 0, want) != SAMPLE_SUCCESS) {
            return SAMPLE_FAILURE;
        }
        for (c = 0; c < SAMPLE_CLASS_NUM && fabsf(got[c] - want[c]) <= ACL_DYNAMIC_AIPP_TOLERANCE; c++) {
        }
        if ((c < SAMPLE_CLASS_NUM || sample_argmax(got, SAMPLE_CLASS_NUM) != sample_argmax(want, SAMPLE_CLASS_NUM)) &&
            (*differ)++ < 3) {
            SAMPLE_ERROR_LOG("frame %zu (box %dx%d at (%d, %d)): score %d is %f, the host reference %f", i,
                             acl_box_size(&box), acl_box_size(&box), box.x, box.y, c < SAMPLE_CLASS_NUM ? c : 0,
                             (double)got[c < SAMPLE_CLASS_NUM ? c : 0], (double)want[c < SAMPLE_CLASS_NUM ? c : 0]);
        }
        *correct += sample_argmax(got, SAMPLE_CLASS_NUM) == g_set.labels[i];
        if (i < 3) {
            SAMPLE_INFO_LOG("frame %zu: crop %dx%d at (%d, %d), padding %d, scf %dx%d -> %dx%d: class %d (label %d)", i,
                            acl_box_size(&box), acl_box_size(&box), box.x, box.y, acl_pad_size(&box),
                            acl_box_size(&box) + 2 * acl_pad_size(&box), acl_box_size(&box) + 2 * acl_pad_size(&box),
                            SAMPLE_IMAGE_W, SAMPLE_IMAGE_H, sample_argmax(got, SAMPLE_CLASS_NUM), g_set.labels[i]);
        }
    }
    SAMPLE_CHECK_RET(svp_acl_mdl_destroy_aipp(aipp));
    free(frame);
    if (sample_io_destroy(&rgb_io) != SAMPLE_SUCCESS || sample_model_unload(&rgb) != SAMPLE_SUCCESS ||
        sample_io_destroy(&lenet_io) != SAMPLE_SUCCESS || sample_model_unload(&lenet) != SAMPLE_SUCCESS) {
        return SAMPLE_FAILURE;
    }
    return SAMPLE_SUCCESS;
}

int main(int argc, char *argv[])
{
    const char *model_dir = argc > 1 ? argv[1] : ACL_DYNAMIC_AIPP_DEFAULT_MODEL_DIR;
    const char *dataset_dir = argc > 2 ? argv[2] : SAMPLE_DEFAULT_DATASET_DIR;
    size_t count = argc > 3 ? (size_t)strtoul(argv[3], NULL, 10) : ACL_DYNAMIC_AIPP_DEFAULT_COUNT;
    double min_top1 = argc > 4 ? atof(argv[4]) : ACL_DYNAMIC_AIPP_DEFAULT_MIN_TOP1;
    size_t differ = 0, correct = 0;
    double top1;
    int ret;
    if (count < 1 || sample_fashion_load(dataset_dir, count, &g_set) != SAMPLE_SUCCESS) {
        SAMPLE_ERROR_LOG("COUNT must be at least 1 and the dataset readable");
        return 1;
    }
    if (svp_acl_init(NULL) != SVP_ACL_SUCCESS || svp_acl_rt_set_device(0) != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("runtime resources: %s", sample_err_msg());
        return 1;
    }
    ret = acl_dynamic_aipp_run(model_dir, &differ, &correct);
    if (svp_acl_rt_reset_device(0) != SVP_ACL_SUCCESS || svp_acl_finalize() != SVP_ACL_SUCCESS) {
        SAMPLE_ERROR_LOG("releasing the runtime resources: %s", sample_err_msg());
        return 1;
    }
    sample_fashion_free(&g_set);
    if (ret != SAMPLE_SUCCESS) {
        return 1;
    }
    top1 = 100.0 * (double)correct / (double)count;
    SAMPLE_INFO_LOG("%zu frames: %zu differ from the host reference, top-1 %.2f %% (at least %.2f %% required)", count,
                    differ, top1, min_top1);
    if (differ != 0 || top1 < min_top1) {
        return 1;
    }
    printf("acl_dynamic_aipp OK\n");
    return 0;
}

/*
 * Board clock sample: "will my detector make 30 fps on this SoC while a background model
 * runs?" answered without a board. The software NPU runs on the predicted board time of the
 * target (acl.json "softnpu": {"clock": "board", "soc_version": ...}; docs/scheduling.md,
 * docs/board_time.md): every figure below is a prediction from published figures, not a
 * measurement.
 *
 * Per target (SS928V100 and Hi3516CV610 by default, or the SoCs given after the model dir):
 *   1. each model alone: its predicted latency (events around one execution);
 *   2. the co-run: the detector (priority 0) gets a camera frame every 33.3 ms of board time
 *      (svp_acl_ext_stream_release_at), the background model (priority 7, compiled
 *      preemptible) is queued back to back for the whole run; both streams are opened together
 *      by a start event once everything is queued (a blocking host callback holds it);
 *   3. per frame: the predicted latency from the frame's arrival to the detector's end, and a
 *      deadline miss when it exceeds the frame period.
 *
 *   board_clock_sample <model dir> [SoC ...]     (models from make_board_clock_models)
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/svp_acl.h"
#include "acl/svp_acl_ext.h"
#include "acl/svp_acl_mdl.h"
#include "acl/svp_acl_rt.h"

#define FRAMES 30
#define PERIOD_US 33333u
#define MAX_BACKGROUND 20000

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        svp_acl_error e_ = (call);                                                                   \
        if (e_ != SVP_ACL_SUCCESS) {                                                                 \
            fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, (int)e_,        \
                    svp_acl_get_recent_err_msg());                                                   \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

typedef struct {
    uint32_t id;
    svp_acl_mdl_desc *desc;
    svp_acl_mdl_dataset *input, *output;
    void *image;
    void *mem[16];
    svp_acl_data_buffer *buf[16];
    size_t n;
} model_t;

static void *read_om(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    void *data = NULL;
    long n;
    if (f == NULL) {
        fprintf(stderr, "cannot open %s (run make_board_clock_models first)\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    CHECK(svp_acl_rt_malloc(&data, (size_t)n, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static void add_buffer(model_t *m, svp_acl_mdl_dataset *ds, size_t size, size_t stride) {
    void *p = NULL;
    CHECK(svp_acl_rt_malloc(&p, size, SVP_ACL_MEM_MALLOC_NORMAL_ONLY));
    memset(p, 0, size);
    m->mem[m->n] = p;
    m->buf[m->n] = svp_acl_create_data_buffer(p, size, stride);
    CHECK(svp_acl_mdl_add_dataset_buffer(ds, m->buf[m->n]));
    m->n++;
}

static void load(model_t *m, const char *dir, const char *name, int32_t priority) {
    char path[1024];
    size_t size = 0, i;
    svp_acl_mdl_config_handle *h;
    snprintf(path, sizeof path, "%s/%s.om", dir, name);
    memset(m, 0, sizeof *m);
    m->image = read_om(path, &size);
    CHECK(svp_acl_mdl_load_from_mem(m->image, size, &m->id));
    h = svp_acl_mdl_create_config_handle();
    CHECK(svp_acl_mdl_set_config_opt(h, SVP_ACL_MDL_PRIORITY_INT32, &priority, sizeof priority));
    CHECK(svp_acl_mdl_set_model_config(m->id, h));
    CHECK(svp_acl_mdl_destroy_config_handle(h));
    m->desc = svp_acl_mdl_create_desc();
    CHECK(svp_acl_mdl_get_desc(m->desc, m->id));
    m->input = svp_acl_mdl_create_dataset();
    m->output = svp_acl_mdl_create_dataset();
    for (i = 0; i < svp_acl_mdl_get_num_inputs(m->desc); ++i) {
        add_buffer(m, m->input, svp_acl_mdl_get_input_size_by_index(m->desc, i),
                   svp_acl_mdl_get_input_default_stride(m->desc, i));
    }
    for (i = 0; i < svp_acl_mdl_get_num_outputs(m->desc); ++i) {
        add_buffer(m, m->output, svp_acl_mdl_get_output_size_by_index(m->desc, i),
                   svp_acl_mdl_get_output_default_stride(m->desc, i));
    }
}

static void unload(model_t *m) {
    size_t i;
    CHECK(svp_acl_mdl_unload(m->id));
    for (i = 0; i < m->n; ++i) {
        CHECK(svp_acl_destroy_data_buffer(m->buf[i]));
        CHECK(svp_acl_rt_free(m->mem[i]));
    }
    CHECK(svp_acl_mdl_destroy_dataset(m->input));
    CHECK(svp_acl_mdl_destroy_dataset(m->output));
    CHECK(svp_acl_mdl_destroy_desc(m->desc));
    CHECK(svp_acl_rt_free(m->image));
}

static float elapsed(svp_acl_rt_event a, svp_acl_rt_event b) {
    float ms = 0;
    CHECK(svp_acl_rt_event_elapsed_time(&ms, a, b));
    return ms;
}

/* Predicted latency of one execution of `m` alone, in ms. */
static float alone(model_t *m, svp_acl_rt_stream s, svp_acl_rt_event a, svp_acl_rt_event b) {
    CHECK(svp_acl_rt_record_event(a, s));
    CHECK(svp_acl_mdl_execute_async(m->id, m->input, m->output, s));
    CHECK(svp_acl_rt_record_event(b, s));
    CHECK(svp_acl_rt_synchronize_stream(s));
    return elapsed(a, b);
}

static void noop(void *data) { (void)data; }

static int cmp_float(const void *x, const void *y) {
    const float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

/* Runs the co-run on `soc`; returns the number of deadline misses, or -1 on a broken invariant. */
static int run_soc(const char *dir, const char *soc) {
    char cfg[256];
    char json[256];
    FILE *f;
    model_t det, bg;
    svp_acl_rt_stream ds, bs, gate;
    svp_acl_rt_event origin, a, b, now, start, rel[FRAMES], end[FRAMES], bg_end;
    float det_ms, bg_ms, lat[FRAMES], sorted[FRAMES], board_ms;
    uint64_t base_us;
    int k, misses = 0, bad = 0, bg_runs;

    snprintf(cfg, sizeof cfg, "/tmp/board_clock_sample_%d.json", (int)getpid());
    snprintf(json, sizeof json, "{\"softnpu\": {\"clock\": \"board\", \"soc_version\": \"%s\"}}", soc);
    f = fopen(cfg, "w");
    if (f == NULL || fputs(json, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", cfg);
        exit(1);
    }
    CHECK(svp_acl_init(cfg));
    remove(cfg);
    CHECK(svp_acl_rt_set_device(0));
    load(&det, dir, "detector", 0);
    load(&bg, dir, "background", 7);
    CHECK(svp_acl_rt_create_stream(&ds));
    CHECK(svp_acl_rt_create_stream(&bs));
    CHECK(svp_acl_rt_create_stream(&gate));
    CHECK(svp_acl_rt_create_event(&origin));
    CHECK(svp_acl_rt_create_event(&a));
    CHECK(svp_acl_rt_create_event(&b));
    CHECK(svp_acl_rt_create_event(&now));
    CHECK(svp_acl_rt_create_event(&start));
    CHECK(svp_acl_rt_create_event(&bg_end));
    for (k = 0; k < FRAMES; ++k) {
        CHECK(svp_acl_rt_create_event(&rel[k]));
        CHECK(svp_acl_rt_create_event(&end[k]));
    }
    /* Board time 0: nothing has run yet. */
    CHECK(svp_acl_rt_record_event(origin, gate));
    CHECK(svp_acl_rt_synchronize_stream(gate));

    /* 1. Each model alone. */
    det_ms = alone(&det, ds, a, b);
    bg_ms = alone(&bg, bs, a, b);
    printf("[%s] predicted alone: detector %.3f ms (%.1f fps), background %.3f ms\n", soc, det_ms, 1000.0 / det_ms,
           bg_ms);

    /* 2. The co-run, queued behind a start event; frames from the current board time on. */
    CHECK(svp_acl_rt_record_event(now, gate));
    CHECK(svp_acl_rt_synchronize_stream(gate));
    base_us = (uint64_t)ceil(elapsed(origin, now) * 1000.0) + 1;
    CHECK(svp_acl_rt_subscribe_report((uint64_t)pthread_self(), gate));
    CHECK(svp_acl_rt_launch_callback(noop, NULL, SVP_ACL_CALLBACK_BLOCK, gate));
    CHECK(svp_acl_rt_record_event(start, gate));
    CHECK(svp_acl_rt_stream_wait_event(ds, start));
    CHECK(svp_acl_rt_stream_wait_event(bs, start));
    for (k = 0; k < FRAMES; ++k) {
        CHECK(svp_acl_ext_stream_release_at(ds, base_us + (uint64_t)k * PERIOD_US));
        CHECK(svp_acl_rt_record_event(rel[k], ds));
        CHECK(svp_acl_mdl_execute_async(det.id, det.input, det.output, ds));
        CHECK(svp_acl_rt_record_event(end[k], ds));
    }
    /* Enough background executions to cover every frame. */
    bg_runs = (int)ceil(FRAMES * (PERIOD_US / 1000.0) / bg_ms) + 1;
    if (bg_runs > MAX_BACKGROUND) bg_runs = MAX_BACKGROUND;
    for (k = 0; k < bg_runs; ++k) CHECK(svp_acl_mdl_execute_async(bg.id, bg.input, bg.output, bs));
    CHECK(svp_acl_rt_record_event(bg_end, bs));
    CHECK(svp_acl_rt_process_report(10000)); /* opens the gate */
    CHECK(svp_acl_rt_synchronize_stream(ds));
    CHECK(svp_acl_rt_synchronize_stream(bs));

    /* 3. Per frame. */
    for (k = 0; k < FRAMES; ++k) {
        lat[k] = elapsed(rel[k], end[k]);
        sorted[k] = lat[k];
        if (lat[k] > PERIOD_US / 1000.0f) ++misses;
        /* A frame never takes less than the detector alone (rounding aside). */
        if (lat[k] < det_ms - 0.001f) bad = 1;
        printf("[%s] frame %2d: arrives %8.3f ms, predicted latency %7.3f ms%s\n", soc, k,
               elapsed(origin, rel[k]), lat[k], lat[k] > PERIOD_US / 1000.0f ? "  DEADLINE MISS" : "");
    }
    qsort(sorted, FRAMES, sizeof sorted[0], cmp_float);
    board_ms = elapsed(start, bg_end);
    printf("[%s] detector at 30 fps with the background: P50 %.3f ms, P99 %.3f ms, %d of %d deadlines missed\n", soc,
           sorted[FRAMES / 2], sorted[(FRAMES * 99 + 99) / 100 - 1], misses, FRAMES);
    printf("[%s] background: %d executions in %.1f ms of board time (%.1f/s while sharing the NPU)\n", soc, bg_runs,
           board_ms, bg_runs * 1000.0 / board_ms);

    CHECK(svp_acl_rt_unsubscribe_report((uint64_t)pthread_self(), gate));
    for (k = 0; k < FRAMES; ++k) {
        CHECK(svp_acl_rt_destroy_event(rel[k]));
        CHECK(svp_acl_rt_destroy_event(end[k]));
    }
    CHECK(svp_acl_rt_destroy_event(origin));
    CHECK(svp_acl_rt_destroy_event(a));
    CHECK(svp_acl_rt_destroy_event(b));
    CHECK(svp_acl_rt_destroy_event(now));
    CHECK(svp_acl_rt_destroy_event(start));
    CHECK(svp_acl_rt_destroy_event(bg_end));
    CHECK(svp_acl_rt_destroy_stream(ds));
    CHECK(svp_acl_rt_destroy_stream(bs));
    CHECK(svp_acl_rt_destroy_stream(gate));
    unload(&det);
    unload(&bg);
    CHECK(svp_acl_rt_reset_device(0));
    CHECK(svp_acl_finalize());
    return bad ? -1 : misses;
}

int main(int argc, char **argv) {
    static const char *const defaults[] = {"SS928V100", "Hi3516CV610"};
    int i, n, failed = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s <model dir> [SoC ...]\n", argv[0]);
        return 2;
    }
    printf("predicted board time from published figures, not measured (docs/board_time.md)\n");
    n = argc > 2 ? argc - 2 : 2;
    for (i = 0; i < n; ++i) {
        const char *soc = argc > 2 ? argv[i + 2] : defaults[i];
        if (run_soc(argv[1], soc) < 0) {
            fprintf(stderr, "[%s] a frame took less than the detector alone: the board clock is broken\n", soc);
            failed = 1;
        }
    }
    if (failed) return 1;
    printf("board clock sample OK\n");
    return 0;
}

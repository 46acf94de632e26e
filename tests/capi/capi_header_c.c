/* include/eigsolve/symv.h compiled as C (C99): the header must stay plain C. Called from
 * test_capi_args.cpp. */
#include "eigsolve/symv.h"

/* Bad uplo through every precision's plain and handle entry points, from C; returns the number
 * of calls that did not give -1. */
int capi_c_bad_uplo_count(void) {
  eigsolve_complex_float cf = {1.0f, 0.0f};
  eigsolve_complex_double cz = {1.0, 0.0};
  eigsolve_dd dd = {1.0, 0.0};
  eigsolve_handle_t h = NULL;
  int wrong = 0;
  wrong += eigsolve_ssymv('X', 1, 1.0f, NULL, 1, NULL, 1, 0.0f, NULL, 1) != -1;
  wrong += eigsolve_dsymv('X', 1, 1.0, NULL, 1, NULL, 1, 0.0, NULL, 1) != -1;
  wrong += eigsolve_chemv('X', 1, cf, NULL, 1, NULL, 1, cf, NULL, 1) != -1;
  wrong += eigsolve_zhemv('X', 1, cz, NULL, 1, NULL, 1, cz, NULL, 1) != -1;
  wrong += eigsolve_ddsymv('X', 1, dd, NULL, 1, NULL, 1, dd, NULL, 1) != -1;
  wrong += eigsolve_ssymv_h(h, 'X', 1, 1.0f, NULL, 1, NULL, 1, 0.0f, NULL, 1) != -1;
  wrong += eigsolve_dsymv_h(h, 'X', 1, 1.0, NULL, 1, NULL, 1, 0.0, NULL, 1) != -1;
  wrong += eigsolve_chemv_h(h, 'X', 1, cf, NULL, 1, NULL, 1, cf, NULL, 1) != -1;
  wrong += eigsolve_zhemv_h(h, 'X', 1, cz, NULL, 1, NULL, 1, cz, NULL, 1) != -1;
  wrong += eigsolve_ddsymv_h(h, 'X', 1, dd, NULL, 1, NULL, 1, dd, NULL, 1) != -1;
  return wrong;
}

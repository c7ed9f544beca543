#include "exit_status.h"

#define STATUS_ROW(constant, status, meaning) { constant, EXIT_STATUS_STR(status), meaning },
#define RANGE_ROW(row, shown, meaning)        { row, shown, meaning },

const struct exit_status_row exit_status_rows[] = { EXIT_STATUSES(STATUS_ROW, RANGE_ROW) };
const unsigned exit_status_nrows = sizeof(exit_status_rows) / sizeof(exit_status_rows[0]);

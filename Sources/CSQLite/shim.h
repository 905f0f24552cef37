#ifndef NEWSSTAND_CSQLITE_SHIM_H
#define NEWSSTAND_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a function pointer made from -1, which Swift cannot import: text is bound
   through this wrapper, which has SQLite copy it before the call returns. */
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/* sqlite3_db_config is variadic, which Swift cannot call: the last connection to close leaves
   the write-ahead log for the next one to read, instead of folding it into the database. */
static inline int csqlite_keep_log_at_close(sqlite3 *database) {
    return sqlite3_db_config(database, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#endif

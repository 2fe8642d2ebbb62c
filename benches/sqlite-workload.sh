#!/usr/bin/env bash
# sqlite-workload.sh - make the "sqlite" benchmark inputs of issue 7: the sqlite3 shell built
# with `clang-22 -fprofile-generate`, run RUNS times (default 33) on each of 6 workloads, giving
# 6 × RUNS raw profiles (v10, the version llvm-profdata-22 reads) of one binary.
#
#   bash benches/sqlite-workload.sh [OUT]        # OUT defaults to /tmp/pgo-merge-bench/sqlite
#   RUNS=33 SQLITE_SRC=/path/to/dir-with-sqlite3.c-and-shell.c bash benches/sqlite-workload.sh
#
# Where sqlite comes from: Debian's source package `sqlite3` (bookworm, 3.40.1-2+deb12u2),
# fetched with `apt-get source` through a private sources list under $WORK (the machine's apt
# configuration is not touched), then the amalgamation (sqlite3.c) and the shell (shell.c) are
# generated with sqlite's own `configure && make sqlite3.c shell.c` (needs tclsh). Nothing of
# sqlite is committed. SQLITE_SRC skips the download when a directory already holds sqlite3.c,
# sqlite3.h and shell.c.
#
# Needs: clang-22 (.ci/install-llvm-sid.sh with PGO_SID_WITH_CLANG=1), apt-get, dpkg-source,
# tclsh, make; root for apt-get source (as everything here). The binary is linked statically so
# that it runs on the host although it was linked against the sid root's libc.
#
# The workloads are deterministic (no random()): run i of workload k is parameterised by i, so
# the counters differ between runs and the same command makes the same files again (up to the
# few counters that depend on the time or the environment).
set -euo pipefail
unset LLVM_PROFILE_FILE CFLAGS LDFLAGS || true
export LC_ALL=C

OUT=${1:-/tmp/pgo-merge-bench/sqlite}
RUNS=${RUNS:-33}
WORK=${WORK:-/tmp/pgo-merge-bench/sqlite-build}
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
die() { echo "sqlite-workload.sh: $*" >&2; exit 1; }
command -v clang-22 >/dev/null || die "clang-22 not found (PGO_SID_WITH_CLANG=1 bash .ci/install-llvm-sid.sh)"

# 1. Sources ----------------------------------------------------------------------------------
SRC=${SQLITE_SRC:-$WORK/amalgamation}
if [ ! -f "$SRC/sqlite3.c" ] || [ ! -f "$SRC/shell.c" ]; then
  [ -z "${SQLITE_SRC:-}" ] || die "$SQLITE_SRC has no sqlite3.c/shell.c"
  echo "== fetching Debian's sqlite3 source package"
  apt=$WORK/apt
  rm -rf "$apt"; mkdir -p "$apt/lists/partial" "$apt/src"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
  APTO=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=-"
        -o "Dir::State::Lists=$apt/lists" -o "APT::Sandbox::User=root")
  apt-get "${APTO[@]}" update -qq >/dev/null
  (cd "$apt/src" && apt-get "${APTO[@]}" source -qq sqlite3=3.40.1-2+deb12u2 >/dev/null 2>&1 \
     || apt-get "${APTO[@]}" source -qq sqlite3 >/dev/null)
  tree=$(find "$apt/src" -maxdepth 1 -mindepth 1 -type d -name 'sqlite3-*' | head -n1)
  [ -n "$tree" ] || die "apt-get source sqlite3 produced no source tree"
  command -v tclsh >/dev/null || die "tclsh is needed to generate the amalgamation (apt-get install tcl)"
  echo "== generating the amalgamation from $(basename "$tree")"
  mkdir -p "$tree/bld"
  (cd "$tree/bld" && ../configure --disable-tcl >configure.log 2>&1 && make sqlite3.c shell.c >make.log 2>&1) \
    || die "making sqlite3.c/shell.c failed (see $tree/bld/make.log)"
  mkdir -p "$SRC"
  cp "$tree/bld/sqlite3.c" "$tree/bld/sqlite3.h" "$tree/bld/shell.c" "$SRC/"
  echo "$(basename "$tree")" >"$SRC/VERSION"
fi

# 2. Instrumented shell -----------------------------------------------------------------------
BIN=$WORK/sqlite3-pgo
if [ ! -x "$BIN" ] || [ "$SRC/sqlite3.c" -nt "$BIN" ]; then
  echo "== building the sqlite3 shell with clang-22 -fprofile-generate (about a minute)"
  b=$WORK/build; mkdir -p "$b"
  cp "$SRC/sqlite3.c" "$SRC/sqlite3.h" "$SRC/shell.c" "$b/"
  (cd "$b" && clang-22 -O2 -fprofile-generate -w \
      -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_MATH_FUNCTIONS \
      -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
      shell.c sqlite3.c -o sqlite3-pgo -lm -static 2>&1 | grep -v -e 'statically linked' -e 'in function' || true)
  [ -x "$b/sqlite3-pgo" ] || die "the build failed"
  mv "$b/sqlite3-pgo" "$BIN"
fi

# 3. Workloads --------------------------------------------------------------------------------
# Each takes the run number i (1..RUNS) and prints SQL/shell commands on stdout.
w_oltp() { # tables, indexes, transactions, joins, updates, deletes
  local n=$((1500 + 97 * $1))
  cat <<EOF
CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b TEXT, c REAL);
CREATE TABLE u(k INTEGER PRIMARY KEY, name TEXT UNIQUE, grp INT);
BEGIN;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$n)
INSERT INTO t(a,b,c) SELECT (i*2654435761+$1)%1000, printf('%08x', i*40503), (i%97)/7.0 FROM s;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$((n / 10)))
INSERT INTO u(name, grp) SELECT 'user' || i, i % 13 FROM s;
COMMIT;
CREATE INDEX ta ON t(a);
CREATE INDEX tc ON t(c, a);
SELECT count(*), sum(a), avg(c) FROM t WHERE a BETWEEN $(( $1 * 7 )) AND 600;
SELECT u.grp, count(*), max(t.c) FROM t JOIN u ON t.a = u.k GROUP BY u.grp ORDER BY 2 DESC;
UPDATE t SET b = upper(b) WHERE a % $(( 3 + $1 % 5 )) = 0;
DELETE FROM t WHERE a % 11 = $(( $1 % 11 ));
SAVEPOINT sp; INSERT INTO u(name, grp) VALUES('x$1', 1); ROLLBACK TO sp; RELEASE sp;
SELECT a, count(*) FROM t GROUP BY a ORDER BY 2 DESC, 1 LIMIT 5;
SELECT * FROM t WHERE b LIKE '%${1}a%' ORDER BY id LIMIT 3;
EOF
}
w_json() { # JSON functions and table-valued functions
  local n=$((300 + 41 * $1))
  cat <<EOF
CREATE TABLE j(id INTEGER PRIMARY KEY, doc TEXT);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$n)
INSERT INTO j(doc) SELECT json_object('i', i, 'name', 'n' || (i*31 % 97), 'tags',
  json_array(i % 3, i % 5, 'x' || (i % 7)), 'nested', json_object('v', i * 1.5, 'ok', i % 2 = 0)) FROM s;
SELECT count(*), sum(json_extract(doc, '\$.nested.v')) FROM j WHERE json_extract(doc, '\$.tags[0]') = $(( $1 % 3 ));
SELECT json_group_array(json_extract(doc, '\$.name')) FROM (SELECT doc FROM j ORDER BY id LIMIT 20);
SELECT key, count(*) FROM j, json_each(j.doc, '\$.tags') GROUP BY value ORDER BY 2 DESC LIMIT 5;
SELECT count(*) FROM j, json_tree(j.doc) WHERE json_tree.type = 'integer';
UPDATE j SET doc = json_set(doc, '\$.extra', $1) WHERE id % 4 = 0;
SELECT json_valid(doc), json_type(doc, '\$.nested') FROM j WHERE id = $1;
SELECT length(json_patch(doc, '{"name":null}')) FROM j WHERE id < 10;
EOF
}
w_fts() { # FTS5 full-text search
  local n=$((200 + 23 * $1))
  cat <<EOF
CREATE VIRTUAL TABLE docs USING fts5(title, body);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$n),
 w(k, word) AS (VALUES (0,'alpha'),(1,'beta'),(2,'gamma'),(3,'delta'),(4,'epsilon'),(5,'zeta'),
   (6,'theta'),(7,'kappa'),(8,'lambda'),(9,'sigma'),(10,'omega'),(11,'rho'),(12,'tau'))
INSERT INTO docs(title, body) SELECT 'doc ' || i,
  (SELECT group_concat(word, ' ') FROM w WHERE (k * i + $1) % 5 < 3) || ' ' ||
  (SELECT group_concat(word, ' ') FROM w WHERE (k + i) % 4 = 0) FROM s;
SELECT count(*) FROM docs WHERE docs MATCH 'alpha AND beta';
SELECT title, bm25(docs) FROM docs WHERE docs MATCH 'gamma OR sigma' ORDER BY bm25(docs) LIMIT 5;
SELECT highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'omega NOT tau' LIMIT 3;
SELECT snippet(docs, 1, '<', '>', '...', 4) FROM docs WHERE docs MATCH 'kap*' LIMIT 3;
INSERT INTO docs(docs) VALUES('optimize');
DELETE FROM docs WHERE rowid % 9 = $(( $1 % 9 ));
SELECT count(*) FROM docs WHERE docs MATCH 'NEAR(alpha delta, 3)';
EOF
}
w_analytics() { # window functions, recursive CTEs, math, sorting
  local n=$((800 + 61 * $1))
  cat <<EOF
CREATE TABLE m(d INT, region TEXT, v REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$n)
INSERT INTO m SELECT i, char(65 + i % 6), sin(i * 0.01 * $1) * 100 + i % 17 FROM s;
SELECT region, d, v, sum(v) OVER (PARTITION BY region ORDER BY d ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
  rank() OVER (PARTITION BY region ORDER BY v DESC), lag(v) OVER (ORDER BY d), ntile(4) OVER (ORDER BY v)
  FROM m ORDER BY d LIMIT 5 OFFSET $1;
SELECT region, count(*), round(avg(v), 3), min(v), max(v), round(sqrt(sum(v*v)), 2) FROM m GROUP BY region;
WITH RECURSIVE
  xaxis(x) AS (VALUES(-2.0) UNION ALL SELECT x+0.1 FROM xaxis WHERE x<1.2),
  yaxis(y) AS (VALUES(-1.0) UNION ALL SELECT y+0.2 FROM yaxis WHERE y<1.0),
  mm(iter, cx, cy, x, y) AS (SELECT 0, x, y, 0.0, 0.0 FROM xaxis, yaxis UNION ALL
    SELECT iter+1, cx, cy, x*x-y*y + cx, 2.0*x*y + cy FROM mm WHERE (x*x + y*y) < 4.0 AND iter<$(( 10 + $1 % 20 ))),
  m2(iter, cx, cy) AS (SELECT max(iter), cx, cy FROM mm GROUP BY cx, cy),
  a(t) AS (SELECT group_concat(substr(' .+*#', 1+min(iter/7,4), 1), '') FROM m2 GROUP BY cy)
SELECT group_concat(rtrim(t), x'0a') FROM a;
SELECT d % 10 AS k, group_concat(DISTINCT region) FROM m GROUP BY k HAVING count(*) > $1 ORDER BY k;
SELECT percent_rank() OVER w, cume_dist() OVER w FROM m WINDOW w AS (ORDER BY v) LIMIT 3;
EOF
}
w_shell() { # the shell's dot-commands: import, output modes, dump, schema
  local n=$((100 + 17 * $1)) csv=$2
  awk -v n="$n" -v r="$1" 'BEGIN { print "id,name,score,city";
    for (i = 1; i <= n; i++) printf "%d,name%d,%d,\"city %d, %s\"\n", i, (i*7+r)%50, (i*13+r)%100, i%9, (i%2?"north":"south") }' >"$csv"
  cat <<EOF
.mode csv
.import $csv people
.mode box
SELECT city, count(*), avg(score) FROM people GROUP BY city ORDER BY city LIMIT 4;
.mode json
SELECT * FROM people WHERE score > $(( 90 - $1 % 10 )) LIMIT 5;
.mode markdown
SELECT name, score FROM people ORDER BY score DESC, id LIMIT 5;
.mode line
SELECT count(*) AS n, sum(score) AS s FROM people;
.mode insert people2
SELECT * FROM people LIMIT 3;
.mode list
.schema
.tables
.headers on
.dump people
.stats on
SELECT max(id) FROM people;
.show
EOF
}
w_maint() { # R-tree, triggers, views, ANALYZE, VACUUM, integrity checks
  local n=$((400 + 37 * $1))
  cat <<EOF
CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx, miny, maxy);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$n)
INSERT INTO boxes SELECT i, i % 100, i % 100 + 1 + i % 7, i / 10 % 50, i / 10 % 50 + 2 FROM s;
SELECT count(*) FROM boxes WHERE minx >= $(( $1 % 50 )) AND maxx <= 80 AND miny >= 5 AND maxy <= 30;
CREATE TABLE log(id INTEGER PRIMARY KEY, msg TEXT, at INT);
CREATE TABLE items(id INTEGER PRIMARY KEY, qty INT CHECK(qty >= 0), label TEXT);
CREATE TRIGGER items_log AFTER UPDATE ON items BEGIN INSERT INTO log(msg, at) VALUES('qty ' || new.qty, new.id); END;
CREATE VIEW low AS SELECT id, label FROM items WHERE qty < 5;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<$((n / 2)))
INSERT INTO items(qty, label) SELECT (i * 7 + $1) % 20, 'item ' || i FROM s;
UPDATE items SET qty = qty + 1 WHERE id % 3 = 0;
SELECT count(*) FROM low;
SELECT count(*) FROM log;
ANALYZE;
SELECT * FROM sqlite_stat1 ORDER BY tbl, idx LIMIT 3;
PRAGMA integrity_check;
PRAGMA foreign_keys = ON;
VACUUM;
PRAGMA page_count;
EXPLAIN QUERY PLAN SELECT * FROM items WHERE label = 'item $1';
EOF
}

echo "== running 6 workloads × $RUNS runs into $OUT"
rm -f "$OUT"/*.profraw
tmp=$WORK/run; rm -rf "$tmp"; mkdir -p "$tmp"
for w in oltp json fts analytics shell maint; do
  for i in $(seq 1 "$RUNS"); do
    f=$(printf '%s/%s-%02d.profraw' "$OUT" "$w" "$i")
    db=$tmp/$w.db; rm -f "$db"
    "w_$w" "$i" "$tmp/people.csv" >"$tmp/in.sql"
    # maint uses a file database (VACUUM, page counts); the others run in memory.
    target=":memory:"; [ "$w" = maint ] && target=$db
    (cd "$tmp" && LLVM_PROFILE_FILE=$f "$BIN" -batch -bail "$target" <"$tmp/in.sql" >"$tmp/out.txt" 2>&1) \
      || { cat "$tmp/out.txt" >&2; die "workload $w run $i failed"; }
    [ -s "$f" ] || die "no profile written for $w run $i"
  done
done
n=$(ls "$OUT"/*.profraw | wc -l)
echo "== $n raw profiles, $(du -sh "$OUT" | cut -f1) in $OUT"

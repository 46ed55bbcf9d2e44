#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""The TPC-H benchmark: real Spark distributions (pyspark from PyPI, each with its own Hadoop) running
the 22 TPC-H queries over Parquet through S3A classic, S3A analytics (where that Hadoop has it) and
Slipstream, against s3proxy behind the shaped link. Run from the repository root:

    python3 slipstream-bench/spark/run_tpch.py --spark 4.0.1,4.3.0            # SF1
    python3 slipstream-bench/spark/run_tpch.py --full                         # SF10
    python3 slipstream-bench/spark/run_tpch.py --sf 0.01 --slipstream-jar J   # a quick trial
    python3 slipstream-bench/spark/run_tpch.py --iceberg                      # the tables as Iceberg tables
    python3 slipstream-bench/spark/run_tpch.py --cluster                      # spark-cluster: 2 executors, shared tier
    python3 slipstream-bench/spark/run_tpch.py --sf 0.01 --queries q1,q6      # some of the queries only

The data and the queries come from DuckDB 1.5.5 and its tpch extension (both from PyPI, in a venv of
their own under slipstream-bench/target/spark-sql/duckdb-1.5.5): dbgen at the scale factor, each table
written as a directory of Parquet files and kept in slipstream-bench/target/spark-sql/tpch-sf<N>/ for
the next run, the queries as tpch_queries() prints them. DuckDB writes Parquet 1.0 files (its
defaults): Snappy, row groups of 122,880 rows (about 8 MB of lineitem), no page index (no column or
offset index), min/max statistics on every column, and a dictionary page only where it pays: columns
of few values (flags, modes, instructions, dates, quantities, discounts, l_suppkey...), while unique
keys, prices, names, addresses and comments are PLAIN. lineitem, orders, partsupp, part and customer
are cut into at least 4 files each, of about 32 MB, each a run of consecutive rows in whole row groups
where a file holds more than one (the last file smaller): at SF1 lineitem is 5 files of 38 MB (9 row
groups) and one of 16 MB, part and customer 4 files of one row group; nation, region and supplier are
one file each. Every run uploads them afresh through the unshaped endpoint, under
s3a://spark-sql/tpch-sf<N>/<table>/ (the server's store is new each run).

Each (Spark version, reader) is one cold job, a new local[2] session and JVM: the step 'load' lists the
8 table directories and registers them as temporary views (Spark reads one footer a table for the
schema), then q1 to q22 run in order, each to the end (collect). Reported per step: seconds, the bytes
the shaped link delivered, GETs and HEADs, and a digest of the answer (rows sorted, floating and
decimal values rounded, see tpch_job.py) that must be the same for every reader of a Spark version.
GETs and HEADs per file opened divide by the files of the tables that the step's SQL names (each
table once; 'load': all 8 tables). An approximation: Spark opens every file of a table it scans (its
footer at least, even when statistics then skip all its row groups), but it scans some tables more
than once in a query (q2, q11, q15, q17, q18, q20, q21 and q22 name a table in a subquery or a
self-join too) and then opens their files again, and 'load' reads one footer a table, not all.
As the 22 queries share a JVM, what a reader keeps between streams serves later queries: Slipstream's
memory and disk caches, the analytics stream's cache; S3A classic keeps nothing.
Per step and per job (from its start, the JVMs' launch included, to the end of its last step) it reports
what the job cost, as run_spark_sql.py does (spark_sql_job.Cost): CPU seconds of every JVM of the job,
all threads (/proc); peak heap used (GC logs); vcore-seconds (cores held x wall seconds) and GB-seconds
of heap held and of peak heap used; printed against S3A classic's (--iceberg: HadoopFileIO over S3A
classic), with Slipstream's guesses per job (hit rate, fetched ahead unused). The reader local-disk (in
the default readers, not with --iceberg) runs the queries over the local tables (file://), the I/O-free
limit: the summary gives each reader's total seconds as a ratio to its.

The JVM's heap is 4g unless --driver-memory says otherwise. Slipstream's budget is a quarter of the heap
(memory.max, its Hadoop default); what the pool holds idle (the memory cache, free buffers) yields to the
heap, so that quarter is no longer held for good as when 2g left Spark short (out of heap in q9/q10 or
q16/q18). What reads have in flight is never given back. Measured 2026-11-27 at SF1 with
--driver-memory 1g (2 cores, a busy machine): S3A classic ran all 22 on Spark 4.0.1 and 4.3.0; Slipstream
ran 21 on 4.3.0 and 19 on 4.0.1. q9 failed on both ("Not enough memory to build and broadcast the
table": on 4.3.0, Spark's broadcast hash map, 14 pages of 32 MiB, could not grow by a 64 MiB array with
395 of the 1,024 heap regions free but none 64 in a row, as G1 on Java 17 does not move humongous
objects; the pool held nothing idle then and 45 MiB in use by vectored reads in flight, 24 buffers of
1.875 MiB). On 4.0.1 q21 ran out of heap in a task, which ended the JVM, so q22 did not run either. At
1g q9 is at the edge for either reader: of Slipstream's repeats, q9 ran in one of two on 4.3.0 and all 22
ran on 4.0.1, and S3A classic's q9 failed the same way in another run that day (docs/benchmarks.md). A job is stopped after --job-timeout
seconds; a job whose JVM ends reports none of its steps (the run names it as failed).

With --iceberg (Spark 4.0.1 by default, with iceberg-spark-runtime-4.0 1.10.1): the same local tables
become Iceberg tables of one JDBC catalog on an SQLite file of the run, written once through HadoopFileIO
over S3A classic on the unshaped endpoint (Iceberg's defaults: Parquet, zstd; one data file per read
split of up to 64 MB of DuckDB's files), under s3a://spark-sql/iceberg-sf<N>/. The readers are the
catalog's io-impl: SlipstreamFileIO (this checkout's slipstream-iceberg jar, or --slipstream-jar),
S3FileIO, S3FileIO with the analytics accelerator, and HadoopFileIO over S3A classic (see
tpch_iceberg.py). 'load' loads the 8 tables from the catalog (their metadata files); GETs and HEADs per
file divide by the tables' data files (Iceberg's 'files' table), though a step also reads metadata:
manifest lists and manifests, once a table while the catalog caches it.

With --cluster, the workload 'spark-cluster' (Spark 4.3.0 by default; spark_cluster.py says how): the
queries on Spark's local-cluster[2,1,2048] (--executor-mb), two executor JVMs of one core and 2 GiB of heap
each, with Slipstream's shared tier on three memcached servers that the run starts on 127.0.0.1 (and
stops), their memory sized from the data (--memcached-mb). Each reader is one application: a new driver
process, new executor JVMs; Slipstream runs two in a row, application 1 on the pool emptied for it
(shared.mode=read-write, a secret new for the run), then application 2 with the same steps, served by what
application 1 left in the pool. Nothing else passes between them: each application has its own disk cache
directory (fs.slipstream.cache.disk.dir) and its own JVMs, so application 2's gains are the tier's. S3A
classic and S3A analytics run one application each: they keep nothing a second one could use. Slipstream
reaches the executors through spark.jars alone (its slipstream-hadoop jar and the plugin's), as a user
adds it to a cluster. The steps: 'load', then 'scan', every column of every row of lineitem (a count,
sums and a hash of all columns), then the queries. Reported per (reader, application, step): seconds,
link MB, GETs; per Slipstream application, from the plugin's gauges (each executor's CSV sink): the tier's
hit ratio (bytes served by the tier over bytes read, summed over the executors; above 1 when the tier
serves bytes the reader then leaves unread) and its share of the bytes that came from the tier or
S3, its hits and misses, the lookup latency's p50 and p99 (the highest of the executors'; each executor's
in the JSON line), and what memcached holds; application 2 against application 1 in total and for 'scan'.
The cost is the driver's and the two executor JVMs' (their CPU from /proc while they live; vcore-seconds:
each executor's core x its lifetime, plus the driver's one core, as YARN bills a cluster-mode driver).
The answers must be the same across every reader and application.

Outputs: one JSON line per (Spark, reader, step) with --out (--cluster: per application too, and a line
per application with its executors' gauges, the tier's numbers and the executors' class path), and one
per job ("record": "job": the whole job's cost, Slipstream's counters); on standard output a markdown
table per Spark version (per step and reader: seconds, link MB, GETs per file opened, --cluster: GETs; a
total row), a summary per (Spark, reader): total seconds (x the fastest reader, x local-disk), link MB,
GETs, HEADs; each job's cost against S3A classic's, CPU seconds per step, Slipstream's guesses. Exits non-zero when the answers of any query
differ across the readers of a Spark version (naming the query and readers) or a job failed. A reader
whose answer to a query is not the one most readers gave (or any reader, when no answer has the most)
has that query in its 'failed' column and no ratio to the fastest reader: it is not ranked.
"""
import argparse
import json
import math
import os
import pathlib
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_spark_sql as common  # noqa: E402  (pyspark venvs, S3A jars, the shaped server)
import spark_cluster  # noqa: E402  (--cluster: the memcached pool, the plugin's gauges)
import tpch_iceberg  # noqa: E402  (--iceberg: the readers' FileIOs, their jars, the catalog)

WORK = common.WORK
DUCKDB = "1.5.5"
TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
SPLIT = {"lineitem", "orders", "partsupp", "part", "customer"}  # the tables cut into several files
FILE_BYTES = 32 << 20  # the size of a file of the split tables
MIN_FILES = 4  # files of a split table, at least
ROW_GROUP = 122_880  # DuckDB's default row group (rows); files are cut in whole row groups
READERS = ["classic", "analytics", "slipstream", common.LOCAL_DISK]  # without --iceberg


def sf_name(sf):
    return "%g" % sf


def duckdb_python():
    """The venv with DuckDB and its tpch extension, from PyPI."""
    venv = WORK / ("duckdb-" + DUCKDB)
    python = venv / "bin" / "python"
    check = [str(python), "-c", "import duckdb, duckdb_extension_tpch; assert duckdb.__version__ == '%s'" % DUCKDB]
    if not python.exists() or subprocess.run(check, capture_output=True).returncode != 0:
        common.run([sys.executable, "-m", "venv", str(venv)])
        common.run([str(python), "-m", "pip", "install", "-q", "duckdb==" + DUCKDB,
                    "duckdb-extension-tpch==" + DUCKDB])
    return python


def data(sf):
    """The local data of a scale factor (generated once, then cached) and its manifest."""
    out = WORK / ("tpch-sf" + sf_name(sf))
    if not (out / "manifest.json").exists():
        tmp = out.with_name(out.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        t0 = time.monotonic()
        common.run([str(duckdb_python()), __file__, "--generate", str(tmp), "--sf", str(sf)])
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
        print("SF%s generated in %.0f s" % (sf_name(sf), time.monotonic() - t0), file=sys.stderr)
    return out, json.loads((out / "manifest.json").read_text())


def generate(out, sf):
    """Runs in the DuckDB venv: dbgen, the tables as Parquet directories, the queries, a manifest."""
    import duckdb
    import duckdb_extension_tpch
    ext = next(pathlib.Path(duckdb_extension_tpch.__file__).parent.rglob("*.duckdb_extension"))
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    con.execute("LOAD '%s'" % ext)
    con.execute("CALL dbgen(sf=%s)" % sf)
    manifest = {"sf": sf, "duckdb": duckdb.__version__, "tables": {}, "queries": []}
    for table in TABLES:
        d = out / table
        d.mkdir(parents=True)
        rows = con.execute("SELECT count(*) FROM " + table).fetchone()[0]
        whole = d / "data_0.parquet"
        con.execute("COPY %s TO '%s' (FORMAT parquet)" % (table, whole))
        files = round(whole.stat().st_size / FILE_BYTES)
        files = max(files, MIN_FILES) if table in SPLIT else max(files, 1)
        if files > 1:
            whole.unlink()
            per = math.ceil(rows / files)
            if per > ROW_GROUP:
                per = math.ceil(per / ROW_GROUP) * ROW_GROUP
            for i in range(math.ceil(rows / per)):
                con.execute("COPY (SELECT * FROM %s WHERE rowid >= %d AND rowid < %d) TO '%s' (FORMAT parquet)"
                            % (table, i * per, (i + 1) * per, d / ("data_%d.parquet" % i)))
        paths = sorted(d.glob("*.parquet"))
        meta = con.execute("SELECT count(DISTINCT (file_name, row_group_id)) FROM parquet_metadata(?)",
                           [[str(p) for p in paths]]).fetchone()
        written = con.execute("SELECT count(*) FROM read_parquet(?)", [[str(p) for p in paths]]).fetchone()[0]
        if written != rows:
            sys.exit("%s: %d rows generated, %d written" % (table, rows, written))
        manifest["tables"][table] = {"rows": rows, "files": len(paths), "row_groups": meta[0],
                                     "bytes": sum(p.stat().st_size for p in paths)}
        print("%-8s %10d rows %3d files %4d row groups %7.1f MB" % (
            table, rows, len(paths), meta[0], manifest["tables"][table]["bytes"] / 1e6), file=sys.stderr)
    for nr, sql in con.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr").fetchall():
        rows = len(con.execute(sql).fetchall())  # DuckDB's row count, a check on Spark's
        manifest["queries"].append({"name": "q%d" % nr, "sql": sql, "duckdb_rows": rows})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))


def tables_named(sql):
    """The tables a query's SQL names: the files it may open are theirs (no column shares a table's name)."""
    return [t for t in TABLES if re.search(r"\b%s\b" % t, sql, re.IGNORECASE)]


def run_of(x):
    """Who gave a result: its reader, or with --cluster its reader and application ('slipstream app 2')."""
    return x.get("run", x["reader"])


def odd_answers(results):
    """(Spark, run, step) whose answer is not the one most runs of that Spark gave, or all of a step's
    answers when no answer has the most."""
    odd = set()
    for v, step in {(x["spark"], x["step"]) for x in results}:
        xs = [x for x in results if x["spark"] == v and x["step"] == step and not x.get("error")]
        counts = {}
        for x in xs:
            counts[x["answer"]] = counts.get(x["answer"], 0) + 1
        if len(counts) > 1:
            ranked = sorted(counts.values(), reverse=True)
            usual = max(counts, key=counts.get) if ranked[0] > ranked[1] else None
            odd |= {(v, run_of(x), step) for x in xs if x["answer"] != usual}
    return odd


def report(results, manifest, versions, readers, cluster=False):
    """The tables of a run. readers: the runs to show, in order (with --cluster, 'slipstream app 1' and
    'slipstream app 2' for Slipstream, and GETs per step instead of GETs per file)."""
    mb = lambda b: b / 1e6  # noqa: E731
    per_file = lambda n, files: n / files if files else 0.0  # noqa: E731
    steps = ["load"] + (["scan"] if any(x["step"] == "scan" for x in results) else []) + [
        q["name"] for q in manifest["queries"]]
    for v in versions:
        rs = [r for r in readers if any(x["spark"] == v and run_of(x) == r for x in results)]
        if not rs:
            continue
        got = {(run_of(x), x["step"]): x for x in results if x["spark"] == v}
        gets = "GETs" if cluster else "GETs/file"
        where = "spark-cluster, local-cluster[2,1,%s], " % next(
            (x["executor_mb"] for x in results if "executor_mb" in x), "?") if cluster else ""
        print("\n%sSpark %s, SF%s: seconds, link MB, %s\n" % (
            where, v, sf_name(manifest["sf"]), "GETs" if cluster else "GETs per file opened"))
        print("| step | files | " + " | ".join("%s s | %s MB | %s %s" % (r, r, r, gets) for r in rs) + " |")
        print("|---|---:|" + "---:|---:|---:|" * len(rs))
        for s in steps:
            files = next((got[(r, s)]["files"] for r in rs if (r, s) in got), 0)
            cells = []
            for r in rs:
                x = got.get((r, s))
                if x is None or x.get("error"):
                    cells.append("failed | | ")
                else:
                    cells.append("%.1f | %.1f | %s" % (x["seconds"], mb(x["bytes"]), x["gets"] if cluster
                                                        else "%.2f" % x["gets_per_file"]))
            print("| %s | %d | %s |" % (s, files, " | ".join(cells)))
        cells = []
        for r in rs:
            xs = [x for x in results if x["spark"] == v and run_of(x) == r]
            files = sum(x["files"] for x in xs)
            n = sum(x["gets"] for x in xs)
            cells.append("**%.1f** | **%.*f** | **%s**" % (sum(x["seconds"] for x in xs), 1 if cluster else 0,
                                                          mb(sum(x["bytes"] for x in xs)),
                                                          n if cluster else "%.2f" % per_file(n, files)))
        print("| total | | %s |" % " | ".join(cells))
    odd = odd_answers(results)
    print("\n| Spark | Hadoop | %s | seconds | × fastest | × %s | link MB | GETs | HEADs | GETs/file | HEADs/file "
          "| failed |" % ("run" if cluster else "reader", common.LOCAL_DISK))
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for v in versions:
        rows = []
        for r in readers:
            xs = [x for x in results if x["spark"] == v and run_of(x) == r]
            if not xs:
                continue
            failed = [x["step"] for x in xs if x.get("error")] + [
                x["step"] + " (answer)" for x in xs if (v, r, x["step"]) in odd]
            rows.append((r, xs, failed))
        ranked = [sum(x["seconds"] for x in xs) for r, xs, failed in rows if not failed and r != common.LOCAL_DISK]
        limit = next((sum(x["seconds"] for x in xs) for r, xs, failed in rows if r == common.LOCAL_DISK and not failed),
                     None)
        for r, xs, failed in rows:
            files = sum(x["files"] for x in xs)
            gets, heads = sum(x["gets"] for x in xs), sum(x["heads"] for x in xs)
            seconds = sum(x["seconds"] for x in xs)
            print("| %s | %s | %s | %.1f | %s | %s | %.0f | %d | %d | %.2f | %.2f | %s |" % (
                v, xs[0]["hadoop"], r, seconds,
                "-" if failed or not ranked or r == common.LOCAL_DISK else "%.2f" % (seconds / min(ranked)),
                "-" if failed else common.ratio(seconds, limit),
                mb(sum(x["bytes"] for x in xs)), gets, heads, per_file(gets, files), per_file(heads, files),
                ",".join(failed) or "-"))


def costs(results, jobs, manifest, versions, readers):
    """What each job cost against the baseline reader's (S3A classic; --iceberg: HadoopFileIO over it): its
    queries' (the steps' sums; peak heap: the highest) and the whole job's (from its start, the JVMs'
    launch included); the CPU seconds per step; Slipstream's guesses."""
    rows = []
    for j in jobs:
        xs = [x for x in results if x["spark"] == j["spark"] and run_of(x) == j["run"]]
        steps = {k: sum(x[k] for x in xs) for _, k, _ in common.COSTS if k != "peak_heap_mb"}
        steps["peak_heap_mb"] = max([x["peak_heap_mb"] for x in xs] + [0])
        rows.append(dict(j, steps=steps, job={k: j[k] for _, k, _ in common.COSTS}))
    if not rows:
        return
    common.cost_table(
        "What each job cost, its steps (summed) and the whole job (its JVMs' launch included), against "
        "S3A classic's: CPU s, every JVM's, all threads; vcore-s = cores held (%d) x wall s; heap held GB-s = "
        "-Xmx x wall s; peak heap = the most heap used (GC logs, summed over the JVMs); peak-used GB-s = peak "
        "heap x wall s" % rows[0]["cores"], rows,
        lambda r: ["Spark", "run"] if r is None else [r["spark"], r["run"]], ("steps", "job"),
        lambda a, b: a["spark"] == b["spark"])
    steps = ["load"] + (["scan"] if any(x["step"] == "scan" for x in results) else []) + [
        q["name"] for q in manifest["queries"]]
    for v in versions:
        rs = [r for r in readers if any(x["spark"] == v and run_of(x) == r for x in results)]
        got = {(run_of(x), x["step"]): x for x in results if x["spark"] == v}
        base = next((b for b in common.BASELINES if any(run_of(x) == b for x in got.values())), None)
        if not rs:
            continue
        print("\nSpark %s: CPU seconds per step, every JVM of the job, and against %s's\n" % (v, base or "-"))
        print("| step | " + " | ".join("%s CPU s | x %s" % (r, base or "-") for r in rs) + " |")
        print("|---|" + "---:|---:|" * len(rs))
        for s in steps:
            cells = []
            for r in rs:
                x, b = got.get((r, s)), got.get((base, s))
                cells.append("- | -" if x is None else "%.1f | %s" % (
                    x["cpu_s"], common.ratio(x["cpu_s"], b["cpu_s"]) if b else "-"))
            print("| %s | %s |" % (s, " | ".join(cells)))
    common.guess_table([([j["spark"], j["run"]], j.get("slipstream_counters")) for j in jobs
                        if j["reader"].startswith("slipstream")], ["Spark", "run"])


def check(results, manifest, versions, failed_jobs):
    """The problems that fail the run: answers that differ across readers (and applications), failed steps or
    jobs."""
    problems = ["Spark %s, %s: the job failed (%s)" % f for f in failed_jobs]
    duckdb_rows = {q["name"]: q["duckdb_rows"] for q in manifest["queries"]}
    steps = ["load"] + (["scan"] if any(x["step"] == "scan" for x in results) else []) + [
        q["name"] for q in manifest["queries"]]
    for v in versions:
        for step in steps:
            xs = [x for x in results if x["spark"] == v and x["step"] == step]
            for x in xs:
                if x.get("error"):
                    problems.append("Spark %s, %s, %s failed: %s" % (v, run_of(x), step, x["error"]))
                elif step in duckdb_rows and x["rows"] != duckdb_rows[step]:
                    print("warning: Spark %s, %s, %s: %d rows, DuckDB %d" % (
                        v, run_of(x), step, x["rows"], duckdb_rows[step]), file=sys.stderr)
            answers = {}
            for x in xs:
                answers.setdefault(x["answer"], []).append(run_of(x))
            if len(answers) > 1:
                problems.append("Spark %s, %s: the answers differ: %s" % (
                    v, step, "; ".join("%s: %s" % ("+".join(rs), a) for a, rs in answers.items())))
    for step in steps:
        across = {x["answer"] for x in results if x["step"] == step and not x.get("error")}
        if len(across) > 1 and not any("%s:" % step in p for p in problems):
            print("note: %s answers differ across Spark versions" % step, file=sys.stderr)
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spark", help="pyspark versions, comma-separated (default 4.0.1,4.3.0; --iceberg: 4.0.1)")
    p.add_argument("--readers", help="default classic,analytics,slipstream; --iceberg: " + ",".join(tpch_iceberg.READERS))
    p.add_argument("--iceberg", action="store_true", help="the tables as Iceberg tables, read through FileIOs")
    p.add_argument("--cluster", action="store_true", help="spark-cluster: local-cluster with the shared tier "
                   "on memcached, Slipstream in two applications (default Spark %s)" % spark_cluster.SPARK)
    p.add_argument("--executor-mb", type=int, default=spark_cluster.EXECUTOR_MB,
                   help="--cluster: each executor's heap, MB (default %(default)s)")
    p.add_argument("--memcached-mb", type=int, help="--cluster: each memcached server's memory, MB "
                   "(default: the tables' size plus 64, so that the pool holds every block without evicting)")
    p.add_argument("--queries", help="these queries only, comma-separated (q1,q6; default all 22)")
    p.add_argument("--profile", default="s3-like")
    p.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    p.add_argument("--full", action="store_true", help="scale factor 10")
    p.add_argument("--driver-memory", help="the heap of each query job's JVM (default 4g; --cluster: the "
                   "driver's, 2g)")
    p.add_argument("--job-timeout", type=int, default=7200, help="seconds a query job may take")
    p.add_argument("--out", help="write the results as JSON lines here")
    p.add_argument("--slipstream-jar", help="the Slipstream jar to test, slipstream-hadoop's (--iceberg: "
                   "slipstream-iceberg's); default: build this checkout's")
    p.add_argument("--generate", help=argparse.SUPPRESS)  # internal: run by the DuckDB venv's python
    args = p.parse_args()
    sf = 10.0 if args.full else args.sf
    if args.generate:
        generate(pathlib.Path(args.generate), sf)
        return
    if args.cluster and args.iceberg:
        sys.exit("--cluster runs the Parquet tables; --iceberg is a workload of its own")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run still stops what it started
    driver_memory = args.driver_memory or ("2g" if args.cluster else "4g")
    WORK.mkdir(parents=True, exist_ok=True)
    local, manifest = data(sf)
    if args.queries:
        names = [q.strip() for q in args.queries.split(",") if q.strip()]
        unknown = [n for n in names if n not in {q["name"] for q in manifest["queries"]}]
        if unknown:
            sys.exit("no such query: %s (q1 to q22)" % ", ".join(unknown))
        manifest = dict(manifest, queries=[q for q in manifest["queries"] if q["name"] in names])
    default = spark_cluster.SPARK if args.cluster else "4.0.1" if args.iceberg else "4.0.1,4.3.0"
    versions = [v.strip() for v in (args.spark or default).split(",") if v.strip()]
    readers = args.readers or ",".join(tpch_iceberg.READERS if args.iceberg else READERS)
    readers = [r.strip() for r in readers.split(",") if r.strip()]
    if not args.iceberg and any(r not in READERS for r in readers):
        sys.exit("--readers: %s" % ", ".join(READERS))
    if args.iceberg:
        tpch_iceberg.check_spark(versions)
        unknown = [r for r in readers if r not in tpch_iceberg.READERS]
        if unknown:
            sys.exit("--iceberg readers are %s, not %s" % (", ".join(tpch_iceberg.READERS), ", ".join(unknown)))
        slipstream_jar = tpch_iceberg.slipstream_jar(common, args.slipstream_jar)
    else:
        slipstream_jar = common.slipstream(args.slipstream_jar)
    plugin_jar = spark_cluster.plugin_jar(common) if args.cluster and "slipstream" in readers else None
    installs = {v: common.pyspark(v) for v in versions}
    job_py = str(pathlib.Path(__file__).resolve().parent / "tpch_job.py")
    base = "s3a://spark-sql/%s-sf%s" % ("iceberg" if args.iceberg else "tpch", sf_name(sf))
    files = {t: manifest["tables"][t]["files"] for t in TABLES}
    iceberg = []  # the job arguments of --iceberg
    if args.iceberg:
        catalog = tpch_iceberg.catalog_file(common, sf_name(sf))
        iceberg = ["--iceberg", "--catalog", str(catalog)]
    selected = ["--queries", ",".join(q["name"] for q in manifest["queries"])] if args.queries else []
    tables = {q["name"]: tables_named(q["sql"]) for q in manifest["queries"]}
    tables["load"] = TABLES
    tables["scan"] = ["lineitem"]
    results, apps, jobs, failed_jobs = [], [], [], []
    out = open(args.out, "w") if args.out else None
    run_dir = pathlib.Path(tempfile.mkdtemp(prefix="tpch-run-"))  # 0700: the tier's properties, the sinks' files
    pool, properties = None, None
    proc, urls, stats = common.shaper(args.profile)
    keys = ["--access-key", urls["access"], "--secret-key", urls["secret"]]
    try:
        if args.cluster and "slipstream" in readers:
            data_mb = sum(t["bytes"] for t in manifest["tables"].values()) >> 20
            pool = spark_cluster.Pool(args.memcached_mb or data_mb + 64)
            properties = spark_cluster.properties_file(run_dir, secrets.token_hex(32), pool.servers)
            print("memcached: %s, %d MB each" % (pool.servers, args.memcached_mb or data_mb + 64), file=sys.stderr)
        python, hadoop = installs[versions[-1]]
        t0 = time.monotonic()
        if args.iceberg:
            tpch_iceberg.remove(catalog)  # the server's store is new: so is the catalog
            jars = tpch_iceberg.jars(common, common.s3a_jars(hadoop), slipstream_jar)
            r = common.job([str(python), job_py, "--mode", "iceberg-write", "--local", str(local), "--base", base,
                            "--endpoint", urls["direct"], "--jars", ",".join(jars["write"]),
                            "--driver-memory", driver_memory] + iceberg + keys)
            files = {t: r["tables"][t]["files"] for t in TABLES}
            print("SF%s written as Iceberg tables in %.0f s: %s" % (sf_name(sf), time.monotonic() - t0, json.dumps(
                r["tables"])), file=sys.stderr)
        else:
            common.job([str(python), job_py, "--mode", "upload", "--local", str(local), "--base", base,
                 "--endpoint", urls["direct"], "--jars", ",".join(common.s3a_jars(hadoop) + [slipstream_jar])] + keys)
            print("SF%s uploaded in %.0f s" % (sf_name(sf), time.monotonic() - t0), file=sys.stderr)
        for v in versions:
            python, hadoop = installs[v]
            if args.iceberg:
                jars = {r: ",".join(j) for r, j in tpch_iceberg.jars(common, common.s3a_jars(hadoop), slipstream_jar).items()}
            elif args.cluster:  # Slipstream's jars through spark.jars only; the peers need none of them
                ours = [slipstream_jar, plugin_jar]
                jars = {r: ",".join(common.s3a_jars(hadoop) + (ours if r == "slipstream" else [])) for r in readers}
            else:
                jars = {r: ",".join(common.s3a_jars(hadoop) + [slipstream_jar]) for r in readers}
            for reader in readers:
                if reader == "analytics" and not args.iceberg and not common.HADOOP_LINES[hadoop][1]:
                    continue
                for app in ([1, 2] if args.cluster and reader == "slipstream" else [1]):
                    run = "%s app %d" % (reader, app) if args.cluster and reader == "slipstream" else reader
                    cluster = []
                    if args.cluster:
                        cluster = ["--cluster", "--executor-mb", str(args.executor_mb)]
                        if reader == "slipstream":
                            metrics = run_dir / ("metrics-%s-app%d" % (v, app))
                            metrics.mkdir()
                            cluster += ["--metrics-dir", str(metrics), "--properties-file", str(properties)]
                            if app == 1:
                                pool.flush()  # application 1 finds the pool empty
                    t0 = time.monotonic()
                    try:
                        r = common.job([str(python), job_py, "--mode", "query", "--reader", reader, "--local",
                                        str(local), "--base", base, "--endpoint", urls["endpoint"], "--stats",
                                        str(stats), "--jars", jars[reader], "--driver-memory", driver_memory]
                                       + iceberg + cluster + selected + keys, args.job_timeout)
                    except subprocess.CalledProcessError as e:
                        failed_jobs.append((v, run, "exit %d" % e.returncode))
                        continue
                    except subprocess.TimeoutExpired:
                        failed_jobs.append((v, run, "stopped after %d s" % args.job_timeout))
                        continue
                    print("Spark %s %s: %.0f s" % (v, run, time.monotonic() - t0), file=sys.stderr, flush=True)
                    for step in r["steps"]:
                        n = sum(files[t] for t in tables[step["step"]])
                        step.update(spark=v, hadoop=hadoop, reader=reader, sf=sf, tables=tables[step["step"]], files=n,
                                    format="iceberg" if args.iceberg else "parquet",
                                    gets_per_file=round(step["gets"] / n, 3) if n else 0.0,
                                    heads_per_file=round(step["heads"] / n, 3) if n else 0.0)
                        if args.cluster:
                            step.update(workload="spark-cluster", application=app, run=run,
                                        executor_mb=args.executor_mb)
                        results.append(step)
                        if out:
                            out.write(json.dumps(step) + "\n")
                            out.flush()
                    counters = r.get("slipstream_counters")
                    if args.cluster:
                        a = spark_cluster.application(r, v, hadoop, reader, app, run, pool)
                        apps.append(a)
                        counters = a.get("slipstream_counters")
                        if out:
                            out.write(json.dumps(a) + "\n")
                            out.flush()
                    j = dict(r["job"], record="job", spark=v, hadoop=hadoop, reader=reader, run=run, sf=sf)
                    if counters is not None:
                        j["slipstream_counters"] = counters
                    jobs.append(j)
                    if out:
                        out.write(json.dumps(j) + "\n")
                        out.flush()
    finally:
        if pool:
            pool.stop()
        common.stop_shaper(proc)
        shutil.rmtree(run_dir, ignore_errors=True)
        if out:
            out.close()
    runs = [r for r in readers if not (args.cluster and r == "slipstream")]
    runs += ["slipstream app 1", "slipstream app 2"] if args.cluster and "slipstream" in readers else []
    report(results, manifest, versions, runs, args.cluster)
    costs(results, jobs, manifest, versions, runs)
    if args.cluster:
        spark_cluster.report(results, apps, versions)
    problems = check(results, manifest, versions, failed_jobs)
    if problems:
        sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""The TPC-H benchmark: real Spark distributions (pyspark from PyPI, each with its own Hadoop) running
the 22 TPC-H queries over Parquet through S3A classic, S3A analytics (where that Hadoop has it) and
Slipstream, against s3proxy behind the shaped link. Run from the repository root:

    python3 slipstream-bench/spark/run_tpch.py --spark 4.0.1,4.3.0            # SF1
    python3 slipstream-bench/spark/run_tpch.py --full                         # SF10
    python3 slipstream-bench/spark/run_tpch.py --sf 0.01 --slipstream-jar J   # a quick trial
    python3 slipstream-bench/spark/run_tpch.py --iceberg                      # the tables as Iceberg tables

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

The JVM's heap is 4g (--driver-memory), not the 2g of the spark-sql benchmark's session: at SF1 with 2g,
Slipstream's memory budget (a quarter of the heap) leaves Spark short (out of heap in q9/q10 or
q16/q18, q21 thrashing), where S3A classic runs all 22. A job is stopped after --job-timeout seconds.

With --iceberg (Spark 4.0.1 by default, with iceberg-spark-runtime-4.0 1.10.1): the same local tables
become Iceberg tables of one JDBC catalog on an SQLite file of the run, written once through HadoopFileIO
over S3A classic on the unshaped endpoint (Iceberg's defaults: Parquet, zstd; one data file per read
split of up to 64 MB of DuckDB's files), under s3a://spark-sql/iceberg-sf<N>/. The readers are the
catalog's io-impl: SlipstreamFileIO (this checkout's slipstream-iceberg jar, or --slipstream-jar),
S3FileIO, S3FileIO with the analytics accelerator, and HadoopFileIO over S3A classic (see
tpch_iceberg.py). 'load' loads the 8 tables from the catalog (their metadata files); GETs and HEADs per
file divide by the tables' data files (Iceberg's 'files' table), though a step also reads metadata:
manifest lists and manifests, once a table while the catalog caches it.

Outputs: one JSON line per (Spark, reader, step) with --out; on standard output a markdown table per
Spark version (per step and reader: seconds, link MB, GETs per file opened; a total row) and a summary
per (Spark, reader): total seconds, link MB, GETs, HEADs. Exits non-zero when the answers of any query
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
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import run_spark_sql as common  # noqa: E402  (pyspark venvs, S3A jars, the shaped server)
import tpch_iceberg  # noqa: E402  (--iceberg: the readers' FileIOs, their jars, the catalog)

WORK = common.WORK
DUCKDB = "1.5.5"
TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
SPLIT = {"lineitem", "orders", "partsupp", "part", "customer"}  # the tables cut into several files
FILE_BYTES = 32 << 20  # the size of a file of the split tables
MIN_FILES = 4  # files of a split table, at least
ROW_GROUP = 122_880  # DuckDB's default row group (rows); files are cut in whole row groups


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


def odd_answers(results):
    """(Spark, reader, step) whose answer is not the one most readers of that Spark gave, or all of a step's
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
            odd |= {(v, x["reader"], step) for x in xs if x["answer"] != usual}
    return odd


def report(results, manifest, versions, readers):
    mb = lambda b: b / 1e6  # noqa: E731
    per_file = lambda n, files: n / files if files else 0.0  # noqa: E731
    steps = ["load"] + [q["name"] for q in manifest["queries"]]
    for v in versions:
        rs = [r for r in readers if any(x["spark"] == v and x["reader"] == r for x in results)]
        if not rs:
            continue
        got = {(x["reader"], x["step"]): x for x in results if x["spark"] == v}
        print("\nSpark %s, SF%s: seconds, link MB, GETs per file opened\n" % (v, sf_name(manifest["sf"])))
        print("| step | files | " + " | ".join("%s s | %s MB | %s GETs/file" % (r, r, r) for r in rs) + " |")
        print("|---|---:|" + "---:|---:|---:|" * len(rs))
        for s in steps:
            files = next((got[(r, s)]["files"] for r in rs if (r, s) in got), 0)
            cells = []
            for r in rs:
                x = got.get((r, s))
                if x is None or x.get("error"):
                    cells.append("failed | | ")
                else:
                    cells.append("%.1f | %.1f | %.2f" % (x["seconds"], mb(x["bytes"]), x["gets_per_file"]))
            print("| %s | %d | %s |" % (s, files, " | ".join(cells)))
        cells = []
        for r in rs:
            xs = [x for x in results if x["spark"] == v and x["reader"] == r]
            files = sum(x["files"] for x in xs)
            cells.append("**%.1f** | **%.0f** | **%.2f**" % (sum(x["seconds"] for x in xs),
                                                           mb(sum(x["bytes"] for x in xs)),
                                                           per_file(sum(x["gets"] for x in xs), files)))
        print("| total | | %s |" % " | ".join(cells))
    odd = odd_answers(results)
    print("\n| Spark | Hadoop | reader | seconds | × fastest | link MB | GETs | HEADs | GETs/file | HEADs/file | failed |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for v in versions:
        rows = []
        for r in readers:
            xs = [x for x in results if x["spark"] == v and x["reader"] == r]
            if not xs:
                continue
            failed = [x["step"] for x in xs if x.get("error")] + [
                x["step"] + " (answer)" for x in xs if (v, r, x["step"]) in odd]
            rows.append((r, xs, failed))
        ranked = [sum(x["seconds"] for x in xs) for _, xs, failed in rows if not failed]
        for r, xs, failed in rows:
            files = sum(x["files"] for x in xs)
            gets, heads = sum(x["gets"] for x in xs), sum(x["heads"] for x in xs)
            seconds = sum(x["seconds"] for x in xs)
            print("| %s | %s | %s | %.1f | %s | %.0f | %d | %d | %.2f | %.2f | %s |" % (
                v, xs[0]["hadoop"], r, seconds, "-" if failed or not ranked else "%.2f" % (seconds / min(ranked)),
                mb(sum(x["bytes"] for x in xs)), gets, heads, per_file(gets, files), per_file(heads, files),
                ",".join(failed) or "-"))


def check(results, manifest, versions, failed_jobs):
    """The problems that fail the run: answers that differ across readers, failed queries or jobs."""
    problems = ["Spark %s, %s: the job failed (%s)" % f for f in failed_jobs]
    duckdb_rows = {q["name"]: q["duckdb_rows"] for q in manifest["queries"]}
    for v in versions:
        for q in manifest["queries"]:
            xs = [x for x in results if x["spark"] == v and x["step"] == q["name"]]
            for x in xs:
                if x.get("error"):
                    problems.append("Spark %s, %s, %s failed: %s" % (v, x["reader"], q["name"], x["error"]))
                elif x["rows"] != duckdb_rows[q["name"]]:
                    print("warning: Spark %s, %s, %s: %d rows, DuckDB %d" % (
                        v, x["reader"], q["name"], x["rows"], duckdb_rows[q["name"]]), file=sys.stderr)
            answers = {}
            for x in xs:
                answers.setdefault(x["answer"], []).append(x["reader"])
            if len(answers) > 1:
                problems.append("Spark %s, %s: the answers differ: %s" % (
                    v, q["name"], "; ".join("%s: %s" % ("+".join(rs), a) for a, rs in answers.items())))
    for q in manifest["queries"]:
        across = {x["answer"] for x in results if x["step"] == q["name"] and not x.get("error")}
        if len(across) > 1 and not any("%s:" % q["name"] in p for p in problems):
            print("note: %s answers differ across Spark versions" % q["name"], file=sys.stderr)
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--spark", help="pyspark versions, comma-separated (default 4.0.1,4.3.0; --iceberg: 4.0.1)")
    p.add_argument("--readers", help="default classic,analytics,slipstream; --iceberg: " + ",".join(tpch_iceberg.READERS))
    p.add_argument("--iceberg", action="store_true", help="the tables as Iceberg tables, read through FileIOs")
    p.add_argument("--profile", default="s3-like")
    p.add_argument("--sf", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    p.add_argument("--full", action="store_true", help="scale factor 10")
    p.add_argument("--driver-memory", default="4g", help="the heap of each query job's JVM")
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
    WORK.mkdir(parents=True, exist_ok=True)
    local, manifest = data(sf)
    versions = [v.strip() for v in (args.spark or ("4.0.1" if args.iceberg else "4.0.1,4.3.0")).split(",") if v.strip()]
    readers = args.readers or ",".join(tpch_iceberg.READERS if args.iceberg else ["classic", "analytics", "slipstream"])
    readers = [r.strip() for r in readers.split(",") if r.strip()]
    if args.iceberg:
        tpch_iceberg.check_spark(versions)
        unknown = [r for r in readers if r not in tpch_iceberg.READERS]
        if unknown:
            sys.exit("--iceberg readers are %s, not %s" % (", ".join(tpch_iceberg.READERS), ", ".join(unknown)))
        slipstream_jar = tpch_iceberg.slipstream_jar(common, args.slipstream_jar)
    else:
        slipstream_jar = common.slipstream(args.slipstream_jar)
    installs = {v: common.pyspark(v) for v in versions}
    job_py = str(pathlib.Path(__file__).resolve().parent / "tpch_job.py")
    base = "s3a://spark-sql/%s-sf%s" % ("iceberg" if args.iceberg else "tpch", sf_name(sf))
    files = {t: manifest["tables"][t]["files"] for t in TABLES}
    iceberg = []  # the job arguments of --iceberg
    if args.iceberg:
        catalog = tpch_iceberg.catalog_file(common, sf_name(sf))
        iceberg = ["--iceberg", "--catalog", str(catalog)]
    tables = {q["name"]: tables_named(q["sql"]) for q in manifest["queries"]}
    tables["load"] = TABLES
    results, failed_jobs = [], []
    out = open(args.out, "w") if args.out else None
    proc, urls, stats = common.shaper(args.profile)
    keys = ["--access-key", urls["access"], "--secret-key", urls["secret"]]
    try:
        python, hadoop = installs[versions[-1]]
        t0 = time.monotonic()
        if args.iceberg:
            tpch_iceberg.remove(catalog)  # the server's store is new: so is the catalog
            jars = tpch_iceberg.jars(common, common.s3a_jars(hadoop), slipstream_jar)
            r = common.job([str(python), job_py, "--mode", "iceberg-write", "--local", str(local), "--base", base,
                            "--endpoint", urls["direct"], "--jars", ",".join(jars["write"]),
                            "--driver-memory", args.driver_memory] + iceberg + keys)
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
            else:
                jars = {r: ",".join(common.s3a_jars(hadoop) + [slipstream_jar]) for r in readers}
            for reader in readers:
                if reader == "analytics" and not args.iceberg and not common.HADOOP_LINES[hadoop][1]:
                    continue
                t0 = time.monotonic()
                try:
                    r = common.job([str(python), job_py, "--mode", "query", "--reader", reader, "--local", str(local),
                             "--base", base, "--endpoint", urls["endpoint"], "--stats", str(stats),
                             "--jars", jars[reader], "--driver-memory", args.driver_memory] + iceberg + keys,
                             args.job_timeout)
                except subprocess.CalledProcessError as e:
                    failed_jobs.append((v, reader, "exit %d" % e.returncode))
                    continue
                except subprocess.TimeoutExpired:
                    failed_jobs.append((v, reader, "stopped after %d s" % args.job_timeout))
                    continue
                print("Spark %s %s: %.0f s" % (v, reader, time.monotonic() - t0), file=sys.stderr, flush=True)
                for step in r["steps"]:
                    n = sum(files[t] for t in tables[step["step"]])
                    step.update(spark=v, hadoop=hadoop, reader=reader, sf=sf, tables=tables[step["step"]], files=n,
                                format="iceberg" if args.iceberg else "parquet",
                                gets_per_file=round(step["gets"] / n, 3) if n else 0.0,
                                heads_per_file=round(step["heads"] / n, 3) if n else 0.0)
                    results.append(step)
                    if out:
                        out.write(json.dumps(step) + "\n")
                        out.flush()
    finally:
        common.stop_shaper(proc)
        if out:
            out.close()
    report(results, manifest, versions, readers)
    problems = check(results, manifest, versions, failed_jobs)
    if problems:
        sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()

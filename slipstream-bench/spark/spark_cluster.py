# Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
"""The spark-cluster workload of the TPC-H benchmark (run_tpch.py --cluster): the queries on Spark's
local-cluster, two executor JVMs of one core each, and Slipstream's shared tier on three real memcached
servers, so that a second application is served by what the first left in the pool.

run_tpch.py (the system's Python) starts the pool (Pool), writes the tier's settings to a properties file
(properties_file) and reads the applications' results (tier, report); tpch_job.py (in a pyspark
installation's Python) calls prepare() and configure() to start its session on the cluster,
await_executors() before its first step, settle() after its last and classpath() after stopping.

- The cluster: local-cluster[2,1,<MB>]. The driver JVM runs a master and two workers; each worker launches
  one executor JVM from $SPARK_HOME/jars and $SPARK_HOME/bin. With pyspark from PyPI the Spark home is the
  package's directory; each job gets a Spark home of its own in its temporary directory (links to the
  package's jars/ and bin/, and a conf/ with log4j2.properties: WARN, as benchmarks log), so that the
  executors' work directories (their logs, the jars they fetched) go there and are removed with it.
- The jars: Slipstream reaches the executors through spark.jars alone (fetched by each executor into its
  work directory and added to its class loader); $SPARK_HOME/jars is pyspark's, untouched.
- The pool: three memcached servers on 127.0.0.1 (Debian's, bin/install-test-deps), started by the run,
  flushed before each Slipstream application 1, stopped by their process ids at the end. Items up to
  -I 1m: the store writes a block as chunks of 512 KiB plus a header of at most 85 bytes and a key of at
  most 80 (slipstream-memcached's Chunks), memcached's default limit.
- The secret: a new one per run, in a properties file of the run (0600) that spark-submit reads
  (--properties-file, named in PYSPARK_SUBMIT_ARGS), never on a command line; the executors receive it
  from the driver with the rest of spark.hadoop.*. Spark's redaction hides it in its own logs and UI.
- The cost: each executor JVM's CPU seconds from /proc (found among the driver's descendants) and its
  peak heap from its GC log (spark.executor.extraJavaOptions, one file per executor by its pid), read
  by tpch_job.py's Cost (spark_sql_job.py) while the executors live, so before the session stops.
- The numbers: Slipstream's applications run the plugin (dev.slipstream.spark.SlipstreamPlugin) with
  Spark's CSV sink, every second, into a directory per application; after the last step the job waits
  until every executor's numbers have been written twice alike (the tier's background writes done), and
  returns each executor's last values (and the driver's). Hit ratio: shared_bytes_read over bytes_read,
  summed over the executors.
"""
import glob
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SPARK = "4.3.0"  # the newest Spark run_tpch knows whose Hadoop (3.5.0) has S3A's analytics stream
EXECUTORS = 2
EXECUTOR_MB = 2048  # each executor's heap, and its worker's memory
SERVERS = 3
ITEM = "1m"  # memcached's item limit: a 512 KiB chunk with its header and key (Chunks.CHUNK)
PLUGIN = "dev.slipstream.spark.SlipstreamPlugin"
SINK = "spark.metrics.conf.%s.sink.csv."
# Reads every column of every row of lineitem, with little work per value beyond decoding it: a count,
# the decimal columns' sums (exact) and one hash of all 16 columns of each row xor-ed together (in any order).
SCAN = """SELECT count(*), sum(l_quantity), sum(l_extendedprice), sum(l_discount), sum(l_tax),
  bit_xor(xxhash64(l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount,
    l_tax, l_returnflag, l_linestatus, l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode,
    l_comment))
FROM lineitem"""
GAUGES = ["bytes_read_total", "bytes_fetched_total", "get_requests_total", "shared_hits_total",
          "shared_misses_total", "shared_bytes_read_total", "shared_partial_total", "shared_corrupt_total",
          "shared_timeouts_total", "shared_errors_total", "shared_sets_total", "shared_sets_dropped_total",
          "shared_get_latency_count", "shared_get_latency_p50_seconds", "shared_get_latency_p99_seconds",
          "memory_cache_bytes_read_total", "disk_cache_bytes_read_total",
          # the guesses (run_spark_sql.GUESSES): hit rate and waste per application
          "open_ahead_started_total", "open_ahead_used_total", "open_ahead_wasted_total", "prefetch_used_total",
          "prefetch_wasted_total", "row_group_ahead_started_total", "row_group_ahead_used_total",
          "row_group_ahead_wasted_total", "predicted_column_bytes_total", "predicted_column_bytes_unread_total",
          "orc_stripe_ahead_bytes_total", "orc_stripe_ahead_bytes_unread_total"]
GAUGE_FILE = re.compile(  # <application id>.<driver or executor id>.plugin.<plugin class>.<gauge>.csv
    r"^[^.]+\.(driver|\d+)\.plugin\.dev\.slipstream\.spark\.SlipstreamPlugin\.slipstream_(\w+)\.csv$")
LOG4J2 = """# the benchmark's logging: WARN, and the executor's lines that name the jars it adds
rootLogger.level = warn
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n%ex
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = info
logger.executor.additivity = false
logger.executor.appenderRef.stderr.ref = console
"""


def master(executor_mb):
    return "local-cluster[%d,1,%d]" % (EXECUTORS, executor_mb)


# ---- run_tpch.py's side (the system's Python) ----

class Pool:
    """Three memcached servers on 127.0.0.1, each on a free port, stopped by their own process ids."""

    def __init__(self, memory_mb, count=SERVERS):
        self.procs, self.ports = [], []
        binary = os.environ.get("MEMCACHED") or shutil.which("memcached") or "/usr/bin/memcached"
        if not os.access(binary, os.X_OK):
            sys.exit("memcached is not installed (bin/install-test-deps, or apt-get install memcached)")
        try:
            for _ in range(count):
                self._start(binary, memory_mb)
        except BaseException:
            self.stop()
            raise

    def _start(self, binary, memory_mb):
        for _ in range(5):
            port = free_port()
            cmd = [binary, "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", str(memory_mb), "-I", ITEM,
                   "-t", "2", "-c", "256"] + (["-u", "root"] if os.geteuid() == 0 else [])
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    self.procs.append(proc)
                    self.ports.append(port)
                    return
                except OSError:
                    time.sleep(0.05)
            stop_process(proc)  # the port was taken meanwhile, or it did not start: another port
        raise RuntimeError("memcached did not start on 127.0.0.1")

    @property
    def servers(self):
        return ",".join("127.0.0.1:%d" % p for p in self.ports)

    def flush(self):
        """Empties every server, and checks that each then holds no item: flush_all only marks the items
        invalid, the LRU crawler then frees them (until then they still count in curr_items)."""
        for port in self.ports:
            if command(port, "flush_all") != ["OK"]:
                raise RuntimeError("flush_all on 127.0.0.1:%d failed" % port)
        deadline = time.monotonic() + 15
        while True:
            left = [s["curr_items"] for s in self.stats() if s["curr_items"]]
            if not left:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("memcached still holds %s items after flush_all" % left)
            for port in self.ports:
                command(port, "lru_crawler crawl all")  # 'BUSY' while a crawl is running: asked again
            time.sleep(0.2)
        time.sleep(1.1)  # flush_all invalidates items of its own second too: none of the next run's may share it

    def stats(self):
        """Per server: items, bytes, evictions, gets that hit and missed, sets."""
        out = []
        for port in self.ports:
            s = dict(line.split()[1:3] for line in command(port, "stats") if line.startswith("STAT "))
            out.append({"server": "127.0.0.1:%d" % port, **{k: int(s[k]) for k in (
                "curr_items", "bytes", "evictions", "get_hits", "get_misses", "cmd_set", "limit_maxbytes")}})
        return out

    def stop(self):
        for proc in self.procs:
            stop_process(proc)
        self.procs = []


def command(port, cmd):
    """One memcached text command; the answer's lines up to OK or END."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(cmd.encode() + b"\r\n")
        data = b""
        while not data.endswith((b"OK\r\n", b"END\r\n")) and "ERROR" not in data.decode(errors="replace"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return data.decode().split("\r\n")[:-1]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_process(proc):
    """SIGTERM, then SIGKILL after 5 s, to this process alone (by its pid); waits at most 10 s more."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 10)):
        try:
            os.kill(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


def properties_file(directory, secret, servers):
    """The tier's settings for spark-submit, readable by this user only."""
    path = pathlib.Path(directory) / "slipstream-shared.properties"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("spark.hadoop.fs.slipstream.shared.mode=read-write\n")
        f.write("spark.hadoop.fs.slipstream.shared.servers=%s\n" % servers)
        f.write("spark.hadoop.fs.slipstream.shared.secret=%s\n" % secret)
    return path


def plugin_jar(common):
    """The Spark plugin's jar, built from this checkout (package, never install)."""
    common.mvn("-pl", "slipstream-spark", "-am", "package", "-DskipTests")
    return [j for j in glob.glob(str(common.ROOT / "slipstream-spark" / "target" / "slipstream-spark-*.jar"))
            if not j.endswith(("-sources.jar", "-tests.jar")) and "original" not in j][0]


def tier(gauges):
    """The tier's numbers of one application, summed over its executors (the driver's apart)."""
    executors = {k: v for k, v in gauges.items() if k != "driver"}
    total = lambda name: sum(g.get(name, 0) for g in executors.values())  # noqa: E731
    read, shared = total("bytes_read_total"), total("shared_bytes_read_total")
    ms = lambda name: {k: round(g.get(name, 0) * 1000, 3) for k, g in sorted(executors.items())}  # noqa: E731
    p50, p99 = ms("shared_get_latency_p50_seconds"), ms("shared_get_latency_p99_seconds")
    fetched = total("bytes_fetched_total")
    return {"executors": len(executors), "bytes_read": read, "shared_bytes_read": shared,
            "hit_ratio": round(shared / read, 4) if read else 0.0,
            "tier_share": round(shared / (shared + fetched), 4) if shared + fetched else 0.0,
            "shared_hits": total("shared_hits_total"), "shared_misses": total("shared_misses_total"),
            "shared_partial": total("shared_partial_total"), "shared_timeouts": total("shared_timeouts_total"),
            "shared_errors": total("shared_errors_total"), "shared_corrupt": total("shared_corrupt_total"),
            "shared_sets": total("shared_sets_total"), "shared_sets_dropped": total("shared_sets_dropped_total"),
            "lookups": total("shared_get_latency_count"), "bytes_fetched": fetched,
            "gets": total("get_requests_total"),
            "lookup_p50_ms": p50, "lookup_p99_ms": p99,
            "lookup_p50_ms_max": max(p50.values(), default=0.0), "lookup_p99_ms_max": max(p99.values(), default=0.0)}


# ---- tpch_job.py's side (a pyspark installation's Python) ----

def prepare(args):
    """A Spark home for this job's cluster, and the properties file spark-submit is to read. Returns the home."""
    import pyspark
    package = pathlib.Path(pyspark.__file__).parent
    home = pathlib.Path(tempfile.mkdtemp(prefix="spark-home-"))  # in the job's own temporary directory
    for d in ("jars", "bin"):
        (home / d).symlink_to(package / d)
    (home / "conf").mkdir()
    (home / "conf" / "log4j2.properties").write_text(LOG4J2)
    os.environ["SPARK_HOME"] = str(home)
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    if args.properties_file:
        os.environ["PYSPARK_SUBMIT_ARGS"] = "--properties-file %s pyspark-shell" % args.properties_file
    return home


# Extra JVM options for the executors, from the environment: e.g.
# SLIPSTREAM_BENCH_EXECUTOR_OPTS='-XX:StartFlightRecording=filename=/tmp/executor.jfr,settings=profile,dumponexit=true'
# (Java 17 does not expand %p there: the executors share the file, and the last to stop leaves its recording).
EXECUTOR_OPTS = "SLIPSTREAM_BENCH_EXECUTOR_OPTS"


def configure(b, args, gc_dir):
    """local-cluster, each executor's GC log in gc_dir (executor-<pid>.log: its peak heap, see
    spark_sql_job.Cost), and for Slipstream the plugin with the CSV sink of the driver and every executor."""
    from spark_sql_job import gc_option
    b = (b.master(master(args.executor_mb))
         .config("spark.executor.memory", "%dm" % args.executor_mb)
         .config("spark.executor.cores", "1"))
    # EXECUTOR_OPTS: e.g. a JFR recording of each executor, to see where its CPU goes
    b = b.config("spark.executor.extraJavaOptions", " ".join(
        o for o in (os.environ.get(EXECUTOR_OPTS), gc_option(gc_dir, "executor-%p")) if o))
    if args.reader == "slipstream":
        b = b.config("spark.plugins", PLUGIN)
        for instance in ("driver", "executor"):
            b = (b.config(SINK % instance + "class", "org.apache.spark.metrics.sink.CsvSink")
                 .config(SINK % instance + "period", "1")
                 .config(SINK % instance + "unit", "seconds")
                 .config(SINK % instance + "directory", args.metrics_dir))
    return b


def await_executors(spark, timeout=180):
    """Waits until both executors have registered: their JVMs' start is not a step's time."""
    sc = spark._jsc.sc()
    deadline = time.monotonic() + timeout
    while sc.getExecutorMemoryStatus().size() < EXECUTORS + 1:  # the driver's block manager counts too
        if time.monotonic() > deadline:
            raise RuntimeError("%d executors did not register within %d s" % (EXECUTORS, timeout))
        time.sleep(0.2)


def gauges(directory):
    """Each instance's ('driver', '0', '1') last value of each gauge of GAUGES, and the time of that row."""
    out = {}
    for name in os.listdir(directory):
        m = GAUGE_FILE.match(name)
        if not m or m.group(2) not in GAUGES:
            continue
        with open(os.path.join(directory, name)) as f:
            rows = [r for r in f.read().splitlines() if r and not r.startswith("t,")]
        if rows:
            t, value = rows[-1].split(",", 1)
            g = out.setdefault(m.group(1), {"t": 0})
            g[m.group(2)] = float(value) if "." in value or "E" in value else int(value)
            g["t"] = max(g["t"], int(t))
    return out


def settle(directory, since, timeout=30):
    """The executors' last gauges once every executor has written rows after `since` (epoch seconds) and two
    of its reports, a second apart, agree: the steps' reads and the tier's background writes are counted."""
    deadline = time.monotonic() + timeout
    previous = None
    while True:
        now = gauges(directory)
        executors = {k: g for k, g in now.items() if k != "driver"}
        fresh = len(executors) == EXECUTORS and all(g["t"] > since for g in executors.values())
        values = {k: {n: v for n, v in g.items() if n != "t"} for k, g in executors.items()}
        if fresh and previous is not None and values == previous[0] and all(
                g["t"] > previous[1].get(k, 0) for k, g in executors.items()):
            return now, True
        if time.monotonic() > deadline:
            return now, False
        if fresh and (previous is None or values != previous[0]):
            previous = (values, {k: g["t"] for k, g in executors.items()})
        time.sleep(0.5)


def classpath(home):
    """What each executor JVM had: its -cp (the Spark home's conf/ and jars/) and the jars it added."""
    out = {}
    home_jars = os.listdir(pathlib.Path(home) / "jars")
    for stderr in sorted(glob.glob(str(pathlib.Path(home) / "work" / "*" / "*" / "stderr"))):
        executor = pathlib.Path(stderr).parent.name
        text = pathlib.Path(stderr).read_text(errors="replace")
        m = re.search(r'"-cp" "([^"]*)"', text)
        cp = m.group(1).replace(str(home), "$SPARK_HOME").split(":") if m else []
        added = sorted({pathlib.Path(a).name for a in re.findall(r"Adding (file:\S+\.jar) to class loader", text)})
        out[executor] = {"java_class_path": cp, "spark_home_jars": len(home_jars), "spark_jars_added": added,
                         "slipstream_in_spark_home": any("slipstream" in j for j in home_jars)}
    return out


def application(r, spark, hadoop, reader, app, run, pool):
    """The JSON line of one application of the cluster: the executors' gauges and class path, the tier's
    numbers and what memcached holds after it (Slipstream's)."""
    a = {"record": "application", "workload": "spark-cluster", "spark": spark, "hadoop": hadoop, "reader": reader,
         "application": app, "run": run, "seconds": round(sum(s["seconds"] for s in r["steps"]), 3),
         "classpath": r.get("classpath", {})}
    for executor, cp in sorted(a["classpath"].items()):
        print("%s, executor %s: -cp %s (%d jars in $SPARK_HOME/jars, Slipstream %s); spark.jars added: %s" % (
            run, executor, ":".join(cp["java_class_path"]), cp["spark_home_jars"],
            "among them" if cp["slipstream_in_spark_home"] else "not among them",
            ", ".join(cp["spark_jars_added"]) or "none"), file=sys.stderr)
    if reader == "slipstream":
        a.update(gauges=r["gauges"], settled=r["settled"], tier=tier(r["gauges"]), memcached=pool.stats())
        executors = [g for k, g in r["gauges"].items() if k != "driver"]
        a["slipstream_counters"] = {n[:-len("_total")]: sum(g.get(n, 0) for g in executors)
                                    for n in GAUGES if n.endswith("_total")}
        if not r["settled"]:
            print("warning: %s: the executors' gauges did not settle within 30 s after the last step" % run,
                  file=sys.stderr)
    return a


def report(results, apps, versions):
    """The tier's table per Slipstream application, and application 2 against application 1 in plain words."""
    mb = lambda b: b / 1e6  # noqa: E731
    tiers = [a for a in apps if "tier" in a]
    if tiers:
        print("\nspark-cluster, the shared tier per Slipstream application (executors' gauges, summed; hit ratio: "
              "from the tier over read, above 1 when the tier serves bytes the reader then leaves unread; "
              "tier share: from the tier over from the tier and S3; lookup latency: the highest executor's, each "
              "executor's in brackets; memcached: what the pool holds after)\n")
        print("| Spark | application | read MB | from the tier MB | from S3 MB | hit ratio | tier share | hits | misses "
              "| partial | timeouts | sets | sets dropped | lookup p50 ms | lookup p99 ms | memcached items | MB "
              "| evictions |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for a in tiers:
            t = a["tier"]
            each = lambda d: ", ".join("%.1f" % d[k] for k in sorted(d))  # noqa: E731
            print("| %s | %d | %.1f | %.1f | %.1f | %.3f | %.3f | %d | %d | %d | %d | %d | %d | %.1f (%s) | %.1f (%s) "
                  "| %d | %.1f | %d |" % (
                a["spark"], a["application"], mb(t["bytes_read"]), mb(t["shared_bytes_read"]),
                mb(t["bytes_fetched"]),
                t["hit_ratio"], t["tier_share"], t["shared_hits"], t["shared_misses"], t["shared_partial"],
                t["shared_timeouts"], t["shared_sets"], t["shared_sets_dropped"], t["lookup_p50_ms_max"],
                each(t["lookup_p50_ms"]), t["lookup_p99_ms_max"], each(t["lookup_p99_ms"]),
                sum(m["curr_items"] for m in a["memcached"]),
                mb(sum(m["bytes"] for m in a["memcached"])), sum(m["evictions"] for m in a["memcached"])))
    print()
    for v in versions:
        xs = [x for x in results if x["spark"] == v and x["reader"] == "slipstream"]
        by = {app: [x for x in xs if x["application"] == app] for app in (1, 2)}
        if not by[1] or not by[2]:
            continue
        total = {app: sum(x["seconds"] for x in by[app]) for app in by}
        link = {app: sum(x["bytes"] for x in by[app]) for app in by}
        gets = {app: sum(x["gets"] for x in by[app]) for app in by}
        print("Spark %s, Slipstream application 2 against application 1: %.1f s against %.1f s in all (%.2f×), "
              "%.1f MB over the link against %.1f MB, %d GETs against %d." % (
                  v, total[2], total[1], total[2] / total[1] if total[1] else 0.0, mb(link[2]), mb(link[1]),
                  gets[2], gets[1]))
        scan = {app: next((x for x in by[app] if x["step"] == "scan"), None) for app in by}
        if scan[1] and scan[2]:
            print("Spark %s, the scan step (every column of lineitem): application 2 %.1f s against application 1's "
                  "%.1f s (%.2f×), %.1f MB over the link against %.1f MB." % (
                      v, scan[2]["seconds"], scan[1]["seconds"],
                      scan[2]["seconds"] / scan[1]["seconds"] if scan[1]["seconds"] else 0.0,
                      mb(scan[2]["bytes"]), mb(scan[1]["bytes"])))
    if any(x["reader"] in ("classic", "analytics") for x in results):
        print("S3A classic and S3A analytics ran one application each: they have no shared tier, and a new "
              "application's executors start with nothing, so a second application would read the same bytes "
              "again and show nothing new.")

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static dev.slipstream.ValueType.aes256KeyBase64;
import static dev.slipstream.ValueType.bool;
import static dev.slipstream.ValueType.choice;
import static dev.slipstream.ValueType.dollars;
import static dev.slipstream.ValueType.duration;
import static dev.slipstream.ValueType.fraction;
import static dev.slipstream.ValueType.fractionToWhole;
import static dev.slipstream.ValueType.hostPorts;
import static dev.slipstream.ValueType.httpUri;
import static dev.slipstream.ValueType.integer;
import static dev.slipstream.ValueType.path;
import static dev.slipstream.ValueType.positiveDuration;
import static dev.slipstream.ValueType.secret;
import static dev.slipstream.ValueType.size;
import static dev.slipstream.ValueType.sizes;
import static dev.slipstream.ValueType.text;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Every configuration key Slipstream reads, with its default and meaning. The plain-Java API uses the
 * names as they are ({@code block.size}); Hadoop-style configuration prefixes them with
 * {@link SlipstreamConfig#HADOOP_PREFIX} ({@code fs.slipstream.block.size}). The table of
 * docs/configuration.md is checked against this enum by a test (ConfigDocsTest), so the two cannot drift apart.
 *
 * <p>Each key names the type of its values: the syntax it accepts, its range, and the words of a refusal
 * (sizes {@code 8M}, durations {@code 30s}, integers in a range, one of some names, ...).
 * {@link SlipstreamConfig} parses and validates every key through its type, so a new key is one line
 * here and one accessor there; only the relations between keys (a block must fit in memory.max) are
 * written out in {@link SlipstreamConfig}.
 */
public enum ConfigKey {
  BLOCK_SIZE("block.size", size(1L << 10, 1L << 30), "8M",
      "Size of one block: the unit of every ranged GET and of the memory pool. AWS recommends ranged "
          + "GETs of 8-16 MB; smaller blocks cost more requests, larger ones more memory per stream."),
  PREFETCH_BLOCKS("prefetch.blocks", integer(0, 1024), "16",
      "Most blocks fetched ahead of a sequential reader, per stream. The depth starts at 2 and doubles with "
          + "each block the reader enters, up to this value (from the second block on, it starts from the depth "
          + "this client's readers needed; a read declared sequential or whole-file starts at this value); it "
          + "halves when the reader finds a whole window already fetched, and "
          + "prefetch takes free memory only. Also the most bytes, in blocks, of Parquet row groups a stream "
          + "fetches ahead (0: none). The default matches fetch.threads: deeper puts no more requests in flight."),
  MEMORY_MAX("memory.max", size(), null,
      "Memory budget for block buffers, shared by every stream in the JVM (sized by its first client). "
          + "Default: a quarter of the JVM's max heap. Buffers no read is using (the memory cache, free buffers) "
          + "go back to the heap when the JVM needs it, before it would run out; free ones also after 2 s unused. "
          + "Must hold at least one block."),
  FETCH_THREADS("fetch.threads", integer(1, 1024), "16",
      "Threads (and HTTP connections) of the one shared fetch executor. AWS suggests one connection "
          + "per 85-90 MB/s wanted."),
  FETCH_PART_MIN("fetch.part.min", size(256L << 10, 1L << 30), "2M",
      "Smallest part of a block read from S3 as parallel GETs (the block a reader waits for, and blocks "
          + "fetched ahead while a run has too few requests in flight to fill the link): 2 MiB take 84 ms on a "
          + "25 MB/s connection, about four first-byte waits of S3. Where one connection is about as fast as "
          + "the link (an object store on the same LAN), parts cost requests and CPU for no speed: this "
          + "value at block.size or more reads every block with one GET."),
  READ_STALL_TIMEOUT("read.stall.timeout", positiveDuration(), "30s",
      "A response that delivers no bytes for this long is abandoned and retried from the last byte received; a"
          + " GET whose response has not begun within this plus connect.timeout is retried the same way."),
  CONNECT_TIMEOUT("connect.timeout", positiveDuration(), "10s", "Timeout to establish a TCP connection."),
  RETRY_MAX("retry.max", integer(0, 100), "7",
      "Retries per request after the first attempt, for transient errors (reset, timeout, stall, "
          + "truncated body, 500, 503 SlowDown). 0 disables retries."),
  RETRY_INTERVAL("retry.interval", duration(), "100ms",
      "Base of the exponential backoff between retries; each wait is random in [0, min(max, base * 2^n)]."),
  RETRY_INTERVAL_MAX("retry.interval.max", duration(), "5s", "Cap of one backoff wait."),
  HEDGE_DELAY_MIN("hedge.delay.min", duration(), "250ms",
      "Hedged requests: a GET whose response has not begun after twice the 95th percentile of the last 512 "
          + "first-byte latencies of the endpoint (learnt by every client of the JVM), and at least this long, "
          + "gets a second identical GET; the first response is read and the other aborted. Until 32 latencies are "
          + "known, the wait is 1s (or this, if longer)."),
  HEDGE_BUDGET("hedge.budget", fraction(), "5%",
      "Most extra GETs hedging may add, as a share of the client's GETs (a percentage, or a fraction such as "
          + "0.05), or one while that share is less than one. 0 turns hedging off."),
  CACHE_MEMORY("cache.memory", bool(), "true",
      "Memory cache: blocks and ranges a stream has done with stay in the memory pool's free space, named by "
          + "object version, and serve the client's later streams (after S3 has answered the new stream's open); "
          + "they are the first memory given up when a read needs it. 'false' frees every buffer at once."),
  CACHE_DISK_MODE("cache.disk.mode", choice(CacheMode.class), "seek",
      "Local disk cache of blocks: 'seek' keeps blocks a seek leaves behind (fetched, not consumed), footers' "
          + "tails, and the columnar ranges (column chunks, stripes) this process fetches from S3 a second time, "
          + "and reads them from disk when wanted again; 'all' also keeps every block read and every range at its "
          + "first fetch, so that re-reads by other streams and jobs on the host hit the disk; 'off' disables it."),
  CACHE_DISK_DIR("cache.disk.dir", path(), null,
      "Where the disk cache lives. It keeps its files in a directory of its own, slipstream-blocks-v1 "
          + "(0700, files 0600, marked by a .slipstream-cache file), and never touches, deletes or chmods "
          + "anything else here. This directory must be yours or root's, no symlink, and not writable by others "
          + "unless sticky (/tmp); else the cache is off, with a warning. Default: slipstream-cache-{user} under "
          + "java.io.tmpdir. Point it at a local disk that outlives the job to share blocks between jobs."),
  CACHE_DISK_MAX("cache.disk.max", size(), "4G",
      "Most bytes the disk cache directory holds, whichever processes wrote them: each process sharing it "
          + "trims the directory's total, least recently used blocks first (other processes' recent writes "
          + "are counted after at most a 16th of this)."),
  CACHE_DISK_MIN_FREE("cache.disk.min.free", fraction(), "10%",
      "Share of the disk the cache always leaves free (a percentage, or a fraction such as 0.1): blocks are "
          + "evicted, or not written, to keep it."),
  CACHE_DISK_CLEAR_ON_START("cache.disk.clear.on.start", bool(), "false",
      "Delete every cached block (only the cache's own files) when the cache is first opened in the JVM, "
          + "instead of reusing the valid ones (each is checked by its CRC32C anyway)."),
  SHARED_MODE("shared.mode", choice(SharedMode.class), "off",
      "Shared block tier (docs/shared-tier.md), asked after the disk cache and before S3: 'read-write' reads "
          + "blocks from it and writes there every block fetched from S3 (in the background, dropped when "
          + "behind); 'read-only' only reads; 'shadow' asks and writes the tier as read-write would, in the "
          + "background, but serves every byte from S3, comparing what the tier holds (shared_shadow_* counters; "
          + "shared.shadow.fraction picks the blocks): "
          + "a new pool tried on live traffic without risk; 'off' disables it. Needs shared.servers and the slipstream-memcached "
          + "module on the class path."),
  SHARED_SERVERS("shared.servers", hostPorts(), null,
      "memcached servers of the shared tier, host:port,... (port 11211 if none is given), chosen per block "
          + "by a ketama ring, so that adding or losing one moves only its share. A single address (an mcrouter "
          + "in front of a pool, say) is a ring of one."),
  SHARED_SECRET("shared.secret", secret(), null,
      "Secret of the shared tier, the same on every host: block names are keyed with it and every chunk is "
          + "signed with it (HMAC-SHA256), so the servers show no object's name and a chunk written without it "
          + "is a miss. Needed by every shared.mode but 'off'; 'none' runs without one, with a warning at start: "
          + "whoever reaches memcached can then read blocks, tell which objects are cached and plant blocks. "
          + "Never logged."),
  SHARED_NAMESPACE("shared.namespace", text(), "slipstream",
      "Name hashed into every shared-tier key: clients with different namespaces never see each other's "
          + "blocks. No bucket or key name reaches the servers."),
  SHARED_TTL("shared.ttl", positiveDuration(), "24h",
      "How long memcached keeps a block written to the shared tier (it may evict it sooner); at most 30 days (720h), memcached's limit for a relative time."),
  SHARED_TIMEOUT("shared.timeout", positiveDuration(), "200ms",
      "Most a read waits for the shared tier's answer for one block before it goes to S3 instead (a "
          + "miss); once 32 lookups were answered, the wait is three times the p99 of the last 512 (a lookup that "
          + "timed out counted as taking its wait), at least 20 ms and at most this. A server that fails or times "
          + "out 3 times in a row is left alone for 10 s, then 20, up to 60 s, its blocks read from S3 meanwhile."),
  SHARED_TIMEOUT_ADAPTIVE("shared.timeout.adaptive", bool(), "true",
      "false: every lookup waits up to shared.timeout, never less: for hosts whose load makes the tier's "
          + "answers swing (a busy executor, a shared test machine), where a miss costs more than the wait."),
  SHARED_SHADOW_FRACTION("shared.shadow.fraction", fractionToWhole(), "1.0",
      "shared.mode=shadow: the share of blocks (and kept ranges) compared with the tier, from 0 to 1 (or 0% to "
          + "100%); 1 compares every one. Chosen by name, the same on every host and in every run, so a host finds "
          + "the sampled blocks another host wrote: a block is compared when the first 8 bytes of its name (an HMAC, "
          + "evenly spread) fall in this share of their range. Blocks not chosen are neither looked up nor written, so "
          + "the sampled blocks need about this share of the memory all would: the hit ratio a pool of M MB "
          + "shows estimates that of a pool of M / fraction MB (docs/shared-tier.md). The other modes ignore it."),
  CACHE_SHADOW_SIZES("cache.shadow.sizes", sizes(), null,
      "Sizes of simulated block caches, e.g. 1G,4G,16G: every block the client's streams fetch is looked up "
          + "by name (no bytes kept) in an LRU cache of each size, and Slipstream.shadowCaches() reports the "
          + "hits each would have had. Default: none."),
  LIST_PARALLELISM("list.parallelism", integer(1, 64), "4",
      "Key ranges one listing is split into and listed in parallel, once it proves longer than one page "
          + "(1,000 keys); each range costs at most one extra LIST. 1 lists sequentially."),
  OPENAHEAD_FILES("openahead.files", integer(0, 64), "8",
      "Open-ahead: most objects whose first block is fetched before they are opened, per client, when the "
          + "caller names the files it reads next (a hint, a declared reading order, or Hadoop's listing "
          + "order once a thread reads its files in that order from their first byte). Only objects of one "
          + "block, only free memory, at most a quarter of memory.max; it switches itself off for the client "
          + "when more of what it fetched was wasted than used. 0 disables it."),
  LIST_REUSE_TTL("list.reuse.ttl", duration(), "30s",
      "Hadoop: how long the directories a globStatus listed flat, or a walk over sibling directories (one "
          + "listStatus each, as Spark's file index calls) listed flat, are answered from that listing (once "
          + "each) when listStatus/listLocatedStatus asks for them next, as FileInputFormat does; and how long a "
          + "listed file's length and ETag stand in for the HEAD of open(path) (a file changed since is "
          + "opened again after a HEAD), and its listed status for the HEAD of getFileStatus(path) (a file "
          + "changed elsewhere since shows as listed). 0 turns all of these off: every call is S3A's."),
  ACCESS_TTL("access.ttl", duration(), "30s",
      "How long an answer from S3 (a successful GET or HEAD of an object version, with this client's "
          + "credentials) stands for that version in this client: within it, cached bytes of the version "
          + "(memory, disk, shared tier) are served with no request, and an open by path with no status may "
          + "read the version this client last saw instead of making a HEAD. Never shared across clients or "
          + "processes; a LIST is no answer; writes through the client forget the answers for their paths. "
          + "0: every open asks S3 before a cached byte is served."),
  CHANGE_DETECTION("change.detection", choice(ChangeDetection.class), "server",
      "How a GET asks for the version its stream reads: 'server' sends it as a condition (If-Match with the "
          + "ETag, the version id with change.detection.source=versionid), which the store refuses with 412 for "
          + "another version; 'client' sends no condition, for stores that refuse conditional GETs. Either way "
          + "every response's ETag (or Last-Modified, or version id) is compared, and a stream never mixes two "
          + "versions: a change fails the read with ObjectChangedException."),
  CHANGE_DETECTION_SOURCE("change.detection.source", choice(ChangeSource.class), "etag",
      "What names the version a stream reads: 'etag', or 'versionid' (a versioned bucket's version id, from "
          + "the open's HEAD or first GET, asked for on every later GET, as S3A does; where the store gives "
          + "none, the ETag)."),
  COST_GET("cost.get", dollars(), "0.0004",
      "US dollars per 1,000 GET requests, for Slipstream.cost() and the benchmark's cost column (S3 Standard's list "
          + "price in US East: GET and all other requests)."),
  COST_HEAD("cost.head", dollars(), "0.0004",
      "US dollars per 1,000 HEAD requests (S3 prices them as other requests, like GETs)."),
  COST_LIST("cost.list", dollars(), "0.005",
      "US dollars per 1,000 LIST requests (S3 Standard in US East: PUT, COPY, POST and LIST)."),
  COST_TRANSFER("cost.transfer", dollars(), "0",
      "US dollars per GB (10^9 bytes) fetched: 0 within an AWS region; S3's transfer out to the internet is "
          + "0.09 for the first 10 TB a month."),
  ENDPOINT("endpoint", httpUri(), null,
      "S3 endpoint URI, e.g. http://127.0.0.1:9000 for MinIO. Default: AWS S3 for the region."),
  REGION("region", text(), null,
      "AWS region. Default: the AWS SDK's region chain (AWS_REGION, profile, instance metadata), "
          + "else us-east-1."),
  PATH_STYLE_ACCESS("path.style.access", bool(), "false",
      "Address buckets as endpoint/bucket/key instead of bucket.endpoint/key; needed by most "
          + "S3-compatible servers (MinIO, s3proxy)."),
  ACCESS_KEY("access.key", secret(), null,
      "Access key id. With secret.key, replaces the AWS SDK's default credentials chain."),
  SECRET_KEY("secret.key", secret(), null, "Secret access key. Never logged."),
  SESSION_TOKEN("session.token", secret(), null, "Session token for temporary credentials. Never logged."),
  SSE_CUSTOMER_KEY("sse.customer.key", aes256KeyBase64(), null,
      "SSE-C: the 256-bit AES key (base64) of objects stored with customer-provided keys, sent with its MD5 on "
          + "every GET and HEAD of this client, as S3 requires for them (S3 refuses them without it: 400, or 403 "
          + "with another key). With a key, read blocks stay in this client's memory cache only: no disk cache, no "
          + "shared tier, whatever cache.disk.mode and shared.mode say, so no plaintext of these objects rests "
          + "outside the process. One key per client. Never logged. Hadoop: S3A's fs.s3a.encryption.key applies.");

  private final String key;
  private final ValueType<?> valueType;
  private final String defaultValue;
  private final String description;

  ConfigKey(String key, ValueType<?> valueType, String defaultValue, String description) {
    this.key = key;
    this.valueType = valueType;
    this.defaultValue = defaultValue;
    this.description = description;
  }

  /** The name without prefix, as the plain-Java API takes it. */
  public String key() {
    return key;
  }

  /** The kind of this key's values, as tools show it ({@link ValueKind#SECRET}: never shown). */
  public ValueKind type() {
    return valueType.kind();
  }

  /** Parses, checks and explains this key's values. */
  ValueType<?> valueType() {
    return valueType;
  }

  /** The default as written in configuration, or empty where the default is computed or absent. */
  public Optional<String> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  public String description() {
    return description;
  }

  public static List<ConfigKey> all() {
    return Arrays.asList(values());
  }

  public static Optional<ConfigKey> byName(String name) {
    for (ConfigKey k : values()) {
      if (k.key.equals(name)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }
}

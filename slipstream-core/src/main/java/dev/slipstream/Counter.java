/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.List;

/** The counters every stream keeps (docs/operations.md, "Counters, latencies and cost"); retries by cause are kept beside them. */
public enum Counter {
  /** Bytes returned to the caller. */
  BYTES_READ("bytes_read"),
  /** Bytes received from S3, including partial bodies of failed attempts. */
  BYTES_FETCHED("bytes_fetched"),
  /** GET requests sent, retries included. */
  GET_REQUESTS("get_requests"),
  /** HEAD requests sent. */
  HEAD_REQUESTS("head_requests"),
  /** Retries, all causes. */
  RETRIES("retries"),
  /** Nanoseconds the caller spent waiting for bytes not yet in memory. */
  WAIT_NANOS("wait_nanos"),
  /** Blocks fetched ahead that the caller then read. */
  PREFETCH_USED("prefetch_used"),
  /** Blocks fetched ahead (or being fetched) that were dropped unread: a seek, close, or memory pressure. */
  PREFETCH_WASTED("prefetch_wasted"),
  /** Idle blocks given back to the pool early because another stream needed memory. */
  BLOCKS_EVICTED("blocks_evicted"),
  /** Small random reads served by a GET of exactly the bytes asked for, bypassing the blocks. */
  DIRECT_READS("direct_reads"),
  /**
   * Blocks fetched from S3 as parallel parts of at least 2 MiB, one GET each: where a run cannot keep a
   * full window of whole blocks in flight (its start, its end) and the reader waits on the link, so that
   * its blocks arrive at the link's speed rather than one connection's.
   */
  BLOCKS_IN_PARTS("blocks_in_parts"),
  /** Streams opened. */
  STREAMS_OPENED("streams_opened"),
  /** Bytes returned to the caller from the stream's blocks already in memory when asked for. */
  BYTES_FROM_MEMORY("bytes_from_memory"),
  /**
   * Blocks or ranges served from the memory cache: bytes an earlier stream of the client read, kept in
   * the memory pool's free space ({@code cache.memory}).
   */
  MEMORY_CACHE_HITS("memory_cache_hits"),
  /** Bytes served from the memory cache. */
  MEMORY_CACHE_BYTES_READ("memory_cache_bytes_read"),
  /** Blocks or ranges the memory cache gave up because memory was wanted for a read. */
  MEMORY_CACHE_EVICTIONS("memory_cache_evictions"),
  /** Bytes read from the local disk cache, verified (the disk tier; S3's is {@link #BYTES_FETCHED}). */
  DISK_CACHE_BYTES_READ("disk_cache_bytes_read"),
  /** Bytes written to the local disk cache. */
  DISK_CACHE_BYTES_WRITTEN("disk_cache_bytes_written"),
  /** Blocks or ranges served from the disk cache. */
  DISK_CACHE_HITS("disk_cache_hits"),
  /** Disk cache lookups that found nothing usable (corrupt entries included). */
  DISK_CACHE_MISSES("disk_cache_misses"),
  /** Cached blocks deleted to stay within cache.disk.max or cache.disk.min.free. */
  DISK_CACHE_EVICTIONS("disk_cache_evictions"),
  /** Cached blocks whose CRC32C or header did not match: dropped, and fetched again. */
  DISK_CACHE_CORRUPT("disk_cache_corrupt"),
  /** Disk cache reads or writes that failed (full disk, I/O error, directory gone); the read went on from S3. */
  DISK_CACHE_ERRORS("disk_cache_errors"),
  /** Blocks not written to the disk cache: no room within its bounds, or too many writes pending. */
  DISK_CACHE_WRITES_SKIPPED("disk_cache_writes_skipped"),
  /**
   * Columnar ranges fetched from S3 and not written to the disk cache because this process had not fetched
   * them before ({@code cache.disk.mode=seek} writes such a range at its second fetch).
   */
  DISK_CACHE_RANGES_DEFERRED("disk_cache_ranges_deferred"),
  /** Blocks served from the shared tier (shared.mode): every chunk present, intact and, with a secret, signed. */
  SHARED_HITS("shared_hits"),
  /** Shared tier lookups that served nothing: absent, partial, corrupt, rejected, late or unreachable. */
  SHARED_MISSES("shared_misses"),
  /** Bytes served from the shared tier. */
  SHARED_BYTES_READ("shared_bytes_read"),
  /** Shared tier lookups that found a block with a chunk missing (evicted, or a server down): a miss. */
  SHARED_PARTIAL("shared_partial"),
  /** Chunks whose header, CRC32C or signature did not match, or written without the secret: a miss. */
  SHARED_CORRUPT("shared_corrupt"),
  /** Shared tier lookups that had no answer within shared.timeout: a miss. */
  SHARED_TIMEOUTS("shared_timeouts"),
  /** Shared tier requests that failed (connection refused or lost, server error): a miss, or a write lost. */
  SHARED_ERRORS("shared_errors"),
  /** Times a server of the shared tier was left alone after failing or timing out 3 times in a row. */
  SHARED_SERVERS_DOWN("shared_servers_down"),
  /** shared.mode=shadow: blocks from S3 that the tier held too, byte for byte (it would have served them). */
  SHARED_SHADOW_HITS("shared_shadow_hits"),
  /** shared.mode=shadow: blocks from S3 that the tier did not hold (then written to it, counted in shared_sets). */
  SHARED_SHADOW_MISSES("shared_shadow_misses"),
  /** shared.mode=shadow: blocks the tier held with bytes other than S3's: it would have served wrong bytes. */
  SHARED_SHADOW_MISMATCHES("shared_shadow_mismatches"),
  /**
   * shared.mode=shadow: sampled blocks (or ranges) from S3 not compared, because the comparisons' queue was
   * full or memory was short (neither looked up nor written).
   */
  SHARED_SHADOW_DROPPED("shared_shadow_dropped"),
  /** Blocks written to the shared tier. */
  SHARED_SETS("shared_sets"),
  /**
   * Blocks not written to the shared tier: too many writes pending, or the write failed (in shadow mode, the
   * write of a block the tier did not hold).
   */
  SHARED_SETS_DROPPED("shared_sets_dropped"),
  /** Parquet: pieces (at most a block each) of the next row group's column chunks fetched ahead while one is decoded. */
  ROW_GROUP_AHEAD_STARTED("row_group_ahead_started"),
  /** Parquet: pieces fetched ahead that a read then used. */
  ROW_GROUP_AHEAD_USED("row_group_ahead_used"),
  /** Parquet: pieces fetched ahead and dropped unused (the reader went elsewhere, or closed). */
  ROW_GROUP_AHEAD_WASTED("row_group_ahead_wasted"),
  /** Parquet: planned pieces the reader asked for before they could start, for want of free memory or over the per-stream bound. */
  ROW_GROUP_AHEAD_SKIPPED("row_group_ahead_skipped"),
  /**
   * Parquet: footers parsed from a tail or footer a stream fetched, and kept by the client as the layout of
   * that object version (where its column chunks, page indexes and bloom filters lie).
   */
  PARQUET_FOOTERS_PARSED("parquet_footers_parsed"),
  /**
   * Parquet: streams that read by a footer an earlier stream of the client parsed, with no footer read of
   * their own. Also exported as {@code parquet_plans_reused}, its former name, for one release.
   */
  PARQUET_FOOTERS_REUSED("parquet_footers_reused", "parquet_plans_reused"),
  /**
   * ORC: tails parsed from a read of a file's end, kept by the client as the layout of that object version
   * (where its stripes lie, and their streams once a reader has read their footers).
   */
  ORC_TAILS_PARSED("orc_tails_parsed"),
  /**
   * ORC: streams that read by a layout an earlier stream of the client learnt, with no tail read of their
   * own. Also exported as {@code orc_plans_reused}, its former name, for one release.
   */
  ORC_LAYOUTS_REUSED("orc_layouts_reused", "orc_plans_reused"),
  /**
   * ORC: stripe footers fetched in a wave, all at once, at a reader's first read of a stripe, for the
   * stripes of its split ahead (whether from S3 or a tier): each later stripe then costs one round trip.
   */
  ORC_STRIPE_FOOTERS_FETCHED("orc_stripe_footers_fetched"),
  /**
   * ORC: bytes of the next stripes' streams fetched ahead of the reader, of the columns it read whole in
   * the first stripe it read.
   */
  ORC_STRIPE_AHEAD_BYTES("orc_stripe_ahead_bytes"),
  /** ORC: of the stripe bytes fetched ahead, those no read used (let go unread, or their request failed). */
  ORC_STRIPE_AHEAD_BYTES_UNREAD("orc_stripe_ahead_bytes_unread"),
  /**
   * Reads that fetched more than they asked for so that the reads after them come from memory: the rest
   * of the column chunk (or the page indexes) a read started in, or at least 64 KiB.
   */
  EXTENDED_READS("extended_reads"),
  /**
   * Parquet: bytes of column chunks requested at a stream's first column read because the client's
   * readers read those columns from the last files of the same schema (predicted columns).
   */
  PREDICTED_COLUMN_BYTES("predicted_column_bytes"),
  /** Parquet: of the predicted column bytes, those no read used: let go unread, or their request failed or was cancelled. */
  PREDICTED_COLUMN_BYTES_UNREAD("predicted_column_bytes_unread"),
  /** LIST (ListObjectsV2) requests sent, retries included. */
  LIST_REQUESTS("list_requests"),
  /** Open-ahead: first blocks of hinted objects whose fetch was started before they were opened. */
  OPEN_AHEAD_STARTED("open_ahead_started"),
  /** Open-ahead: prepared first blocks handed to the stream that opened their object. */
  OPEN_AHEAD_USED("open_ahead_used"),
  /**
   * Open-ahead: prepared first blocks dropped unused: never opened (a wrong guess), pushed out by newer
   * hints, left unused too long, failed, evicted, opened as another version, or the client closed.
   */
  OPEN_AHEAD_WASTED("open_ahead_wasted"),
  /** Open-ahead: hinted objects not fetched ahead because memory was short. */
  OPEN_AHEAD_SKIPPED_MEMORY("open_ahead_skipped_memory"),
  /**
   * Open-ahead of streams: streams opened before their object was, for a reader that starts at the footer
   * (Parquet, ORC), and given its first read (the tail), or a footer's stream kept for the open of the same file that follows.
   */
  OPEN_AHEAD_STREAMS_STARTED("open_ahead_streams_started"),
  /** Open-ahead of streams: prepared streams handed to the open of their object. */
  OPEN_AHEAD_STREAMS_USED("open_ahead_streams_used"),
  /**
   * Open-ahead of streams: prepared streams closed unused: never opened (a wrong guess), pushed out by
   * newer hints, left unused too long, their first reads failed, opened as another version or with another
   * policy or split, written to through the client, or the client closed.
   */
  OPEN_AHEAD_STREAMS_WASTED("open_ahead_streams_wasted"),
  /**
   * Open-ahead: times it switched itself off for a client because what it fetched went mostly unused
   * (more prepared blocks, or prepared streams, wasted than used over its last decisions).
   */
  OPEN_AHEAD_DISABLED("open_ahead_disabled"),
  /**
   * Streams reading ranges (a columnar read policy, or a first read at the tail) that started
   * prefetching because their reads proved sequential.
   */
  SEQUENTIAL_SWITCHES("sequential_switches"),
  /**
   * Hadoop {@code open(path)} calls with no status that took the file's length and version from a
   * listing this FileSystem made within {@code list.reuse.ttl}, instead of a HEAD.
   */
  OPENS_FROM_LISTING("opens_from_listing"),
  /**
   * Of those, files found changed since that listing at their first read: opened again after a HEAD
   * and read in their current version, as a HEAD at open would have.
   */
  OPENS_FROM_LISTING_CHANGED("opens_from_listing_changed"),
  /**
   * Opens with no length given (Hadoop's {@code open(path)} included) that took the object's length and
   * version from an answer S3 gave this client within {@code access.ttl}, instead of a HEAD.
   */
  OPENS_FROM_ANSWER("opens_from_answer"),
  /**
   * Hadoop {@code getFileStatus(path)} calls of a file a listing of this FileSystem handed out within
   * {@code list.reuse.ttl}, answered with that listing's own status instead of a HEAD.
   */
  STATUSES_FROM_LISTING("statuses_from_listing"),
  /** Second GETs sent for a GET whose response was late ({@code hedge.*}); each is in get_requests too. */
  HEDGED_REQUESTS("hedged_requests"),
  /** Of those, the ones that answered before the GET they hedged: that GET was aborted. */
  HEDGE_WINS("hedge_wins");

  /** Former name of {@link #PARQUET_FOOTERS_REUSED}, kept for one release. */
  @Deprecated
  public static final Counter PARQUET_PLANS_REUSED = PARQUET_FOOTERS_REUSED;
  /** Former name of {@link #ORC_LAYOUTS_REUSED}, kept for one release. */
  @Deprecated
  public static final Counter ORC_PLANS_REUSED = ORC_LAYOUTS_REUSED;

  private final String metricName;
  private final List<String> formerNames;

  Counter(String metricName, String... formerNames) {
    this.metricName = metricName;
    this.formerNames = List.of(formerNames);
  }

  /** The snake_case name used in JSON and metric exports. */
  public String metricName() {
    return metricName;
  }

  /**
   * The names this counter had before a rename, exported beside {@link #metricName} with the same value for
   * one release, so that a dashboard keeps working while it moves to the new name; empty for most.
   */
  public List<String> formerNames() {
    return formerNames;
  }

  /** {@link #metricName} first, then the {@link #formerNames}: every name the counter is exported under. */
  public List<String> exportedNames() {
    List<String> all = new java.util.ArrayList<>(1 + formerNames.size());
    all.add(metricName);
    all.addAll(formerNames);
    return all;
  }
}

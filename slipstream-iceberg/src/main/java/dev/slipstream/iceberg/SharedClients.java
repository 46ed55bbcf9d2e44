/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.io.StorageCredential;

/**
 * The clients this JVM shares among the FileIOs that came over the wire, one pair per set of properties
 * and storage credentials, closed once nothing uses them.
 *
 * <p>Why: Iceberg serializes a table's FileIO into Spark tasks (once per executor for a broadcast table,
 * once per task for some metadata tables); a client per copy would throw its caches away with each task,
 * so copies of the same properties share one pair. But the properties change: a REST catalog vends
 * credentials that expire, and each rotation is a new set, so a pair must not outlive its users, or
 * every rotation leaves a Slipstream client, an S3FileIO and their connection pools behind.
 *
 * <p>How: each user holds a {@link Lease}, and a pair is closed once it has had no lease for
 * {@link #IDLE} (kept that long so that a copy deserialized for the next task finds the caches warm). A
 * lease ends when its holder closes it, or, since nobody closes some copies (Iceberg's Spark tables close
 * their FileIO when Spark drops the broadcast; a copy inside a task closure is never closed), when the
 * garbage collector finds nothing reaches it any more. Whatever reads through a pair holds a lease of its
 * own or one that it reaches: a copy holds one; its input files, listings and output files reach it; each
 * open stream holds another until closed. So a pair is never closed under a reader.
 *
 * <p>Keys are a SHA-256 digest of the properties and of the storage credentials (a REST catalog's
 * per-prefix credentials, each prefix with its config): copies with other credentials for a prefix read
 * as another principal there, so they must not share clients, and a rotation of those credentials is a
 * new pair as a rotation of the properties is. No credential is kept as a key.
 */
final class SharedClients {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SharedClients.class);

  /** How long a pair with no lease stays open, for the next copy of the same properties. */
  static final Duration IDLE = Duration.ofSeconds(60);

  /** This JVM's pairs. */
  static final SharedClients JVM = new SharedClients(IDLE);

  /** Ends the leases nobody closed, once nothing reaches them: one daemon thread for the JVM. */
  private static final Cleaner CLEANER = Cleaner.create(daemon("slipstream-fileio-cleaner"));

  private final Map<String, Entry> entries = new HashMap<>();
  /** Closes idle pairs; its one thread ends when nothing is due. */
  private final ScheduledThreadPoolExecutor closer;
  private volatile Duration idle;

  SharedClients(Duration idle) {
    this.idle = Objects.requireNonNull(idle, "idle");
    closer = new ScheduledThreadPoolExecutor(1, daemon("slipstream-fileio-release"));
    closer.setKeepAliveTime(10, TimeUnit.SECONDS);
    closer.allowCoreThreadTimeOut(true);
    closer.setRemoveOnCancelPolicy(true);
  }

  /**
   * A lease on the pair for these properties and storage credentials, opened now if there is none.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  Lease acquire(Map<String, String> properties, List<StorageCredential> credentials) {
    String key = digest(properties, credentials);
    synchronized (this) {
      Entry e = entries.get(key);
      if (e != null) {
        return e.lease();
      }
    }
    // Opened outside the lock (it builds two S3 clients); the loser of a race closes its own pair.
    FileIOClients opened = FileIOClients.open(properties, credentials);
    Lease lease;
    synchronized (this) {
      lease = entries.computeIfAbsent(key, k -> new Entry(k, opened)).lease();
    }
    if (lease.clients() != opened) {
      opened.close();
    }
    return lease;
  }

  /** Another lease on the pair {@code lease} is on; null for null (clients a FileIO owns). */
  static Lease another(Lease lease) {
    return lease == null ? null : lease.another();
  }

  /** Ends {@code lease}, if there is one. */
  static void end(Lease lease) {
    if (lease != null) {
      lease.close();
    }
  }

  /** Whether a pair for these properties, without storage credentials, is open now, leased or idle: for tests. */
  boolean holds(Map<String, String> properties) {
    return holds(properties, List.of());
  }

  /** Whether a pair for these properties and storage credentials is open now, leased or idle: for tests. */
  boolean holds(Map<String, String> properties, List<StorageCredential> credentials) {
    String key = digest(properties, credentials);
    synchronized (this) {
      return entries.containsKey(key);
    }
  }

  /** For tests: waits until the closes due by now have run (the closer runs them in order, on one thread). */
  void settle() throws InterruptedException, java.util.concurrent.ExecutionException {
    closer.schedule(() -> { }, 0, TimeUnit.MILLISECONDS).get();
  }

  /** For tests: how long a pair with no lease stays open, from the next release on. */
  void idle(Duration idle) {
    this.idle = Objects.requireNonNull(idle, "idle");
  }

  /** One pair and its leases; its fields are guarded by the registry's lock. */
  private final class Entry {
    final String key;
    final FileIOClients clients;
    int leases;
    boolean closed;
    ScheduledFuture<?> closing;

    Entry(String key, FileIOClients clients) {
      this.key = key;
      this.clients = clients;
    }

    Lease lease() {
      synchronized (SharedClients.this) {
        return leaseLocked();
      }
    }

    private Lease leaseLocked() {
      if (closed) {
        throw new IllegalStateException("SlipstreamFileIO's clients were closed: it was closed, or unused for " + idle);
      }
      leases++;
      if (closing != null) {
        closing.cancel(false);
        closing = null;
      }
      return new Lease(this);
    }

    void release() {
      synchronized (SharedClients.this) {
        if (--leases == 0 && !closed) {
          closing = closer.schedule(this::closeIfIdle, idle.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
    }

    private void closeIfIdle() {
      synchronized (SharedClients.this) {
        if (leases > 0 || closed) {
          return;
        }
        closed = true;
        closing = null;
        entries.remove(key, this);
      }
      try {
        clients.close();
      } catch (RuntimeException e) {
        LOG.warn("Slipstream: closing the unused clients of a SlipstreamFileIO failed: {}", e.toString());
      }
    }
  }

  /**
   * One holder's use of a pair: ended once, by {@link #close()} or by the garbage collector when nothing
   * reaches it. Whatever holds or reaches a lease may use its clients.
   */
  static final class Lease implements AutoCloseable {
    private final Entry entry;
    private final Cleaner.Cleanable cleanable;

    private Lease(Entry entry) {
      this.entry = entry;
      // The action must not reach this lease, or the lease would never become unreachable.
      this.cleanable = CLEANER.register(this, new Release(entry));
    }

    FileIOClients clients() {
      return entry.clients;
    }

    /**
     * Another lease on the same pair, for a stream that may outlive its holder's lease.
     *
     * @throws IllegalStateException if the pair was closed (this lease ended and the pair was idle since)
     */
    Lease another() {
      return entry.lease();
    }

    /** Ends this lease; idempotent. */
    @Override
    public void close() {
      cleanable.clean();
    }
  }

  /** Ends a lease once (the Cleaner runs an action at most once, whether cleaned or collected). */
  private record Release(Entry entry) implements Runnable {
    @Override
    public void run() {
      entry.release();
    }
  }

  private static void update(MessageDigest sha, Map<String, String> map) {
    for (Map.Entry<String, String> e : new TreeMap<>(map).entrySet()) {
      sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(e.getValue().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
    }
    sha.update((byte) 2);
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * The properties, then each credential in order (S3FileIO's order: of two equal prefixes the later wins),
   * its prefix and its config; a marker byte between the parts keeps one part from reading as another.
   */
  private static String digest(Map<String, String> properties, List<StorageCredential> credentials) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      update(sha, properties);
      for (StorageCredential c : credentials) {
        sha.update((byte) 1);
        sha.update(c.prefix().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        update(sha, c.config());
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}

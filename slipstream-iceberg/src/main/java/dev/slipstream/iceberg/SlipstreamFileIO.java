/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.apache.iceberg.io.SupportsStorageCredentials;

/**
 * An Iceberg {@link FileIO} that reads through Slipstream, for a catalog's {@code io-impl}:
 *
 * <pre>
 *   spark.sql.catalog.lake.io-impl = dev.slipstream.iceberg.SlipstreamFileIO
 *   spark.sql.catalog.lake.s3.endpoint = http://127.0.0.1:9000     (as for S3FileIO)
 *   spark.sql.catalog.lake.slipstream.block.size = 4M              (any Slipstream key, prefixed)
 * </pre>
 *
 * <p>Reads ({@link #newInputFile}) go through a Slipstream client configured from the catalog
 * properties ({@link CatalogProperties}: {@code slipstream.*}, and S3FileIO's SSE-C key), over the S3
 * client the S3FileIO below uses for that path: one identity and one route for reads and writes,
 * whatever of S3FileIO's properties set them, and per prefix whatever storage credentials a REST catalog
 * handed over ({@link #setCredentials}; {@link FileIOClients}). A file opened with its length (data files, delete
 * files, manifests) costs no HEAD, nor does one read whole by path (a {@code metadata.json}, a manifest
 * list: the first GET says the length); metadata and manifests are read whole, Parquet and ORC by ranges
 * planned from the footer ({@link FileKind}).
 *
 * <p>Everything else, writes, deletes and listings, is Iceberg's own {@link S3FileIO}, initialized with the
 * same properties: this class has no S3 write path. A write or delete through it makes the Slipstream
 * client forget what S3 told it about those objects.
 *
 * <p>Locations are {@code s3://}, {@code s3a://} or {@code s3n://}; any other is an
 * {@link IllegalArgumentException} naming it. A bad property fails {@link #initialize} with its name.
 *
 * <p>Serializable, as Iceberg ships a table's FileIO to Spark executors: only the properties and storage
 * credentials travel, and a copy shares the clients its JVM keeps for those ({@link SharedClients}) with
 * the other copies of them. {@link #close()} closes both clients of a FileIO that was initialized; a copy's close,
 * or the copy becoming unreachable, releases its hold on the shared pair, which closes a minute after
 * its last copy, input file and stream are gone.
 */
public class SlipstreamFileIO
    implements FileIO, SupportsPrefixOperations, SupportsBulkOperations, SupportsStorageCredentials {
  private static final long serialVersionUID = 1L;
  /** S3FileIO's delete batches in one {@link #deleteFiles} chunk: the paths held at once (10,000 by default). */
  static final int BATCHES_PER_CHUNK = 40;

  private Map<String, String> properties = Map.of();
  /** The storage credentials a REST catalog handed over; an ArrayList, which Java and Kryo serialization both carry. */
  private ArrayList<StorageCredential> storageCredentials = new ArrayList<>();
  private transient volatile FileIOClients clients;
  /**
   * A deserialized copy's hold on the clients its JVM shares for these properties (null while this instance
   * owns its clients, as after {@link #initialize}): released by {@link #close()}, or once nothing reaches it.
   */
  private transient volatile SharedClients.Lease lease;
  private transient volatile boolean closed;

  /** For {@code io-impl}: Iceberg calls {@link #initialize} next. */
  public SlipstreamFileIO() {}

  /**
   * Builds the Slipstream client and the S3FileIO from the catalog properties.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  @Override
  public void initialize(Map<String, String> catalogProperties) {
    Objects.requireNonNull(catalogProperties, "catalogProperties");
    Map<String, String> copy = Collections.unmodifiableMap(new LinkedHashMap<>(catalogProperties));
    FileIOClients opened = FileIOClients.open(copy, credentials());
    FileIOClients previous;
    SharedClients.Lease previousLease;
    synchronized (this) {
      this.properties = copy;
      previous = clients;
      previousLease = lease;
      clients = opened;
      lease = null;
      closed = false;
    }
    release(previous, previousLease);
  }

  @Override
  public Map<String, String> properties() {
    return properties;
  }

  /**
   * Per-prefix storage credentials, as a REST catalog hands them over (Iceberg's {@code CatalogUtil} calls
   * this before {@link #initialize}). The S3FileIO below gets them, so writes, deletes and listings of a
   * path go with the credential of the longest prefix it is under, and so do reads: each read goes through
   * the S3 client S3FileIO uses for its path, under a Slipstream client of its own. Called after
   * {@link #initialize}, the clients are built anew with these credentials, as S3FileIO rebuilds its own.
   */
  @Override
  public void setCredentials(List<StorageCredential> credentials) {
    Objects.requireNonNull(credentials, "credentials");
    ArrayList<StorageCredential> copy = new ArrayList<>(credentials);
    copy.forEach(c -> Objects.requireNonNull(c, "a storage credential"));
    boolean reopen;
    synchronized (this) {
      storageCredentials = copy;
      reopen = clients != null && lease == null; // owned clients: rebuilt; a copy's are acquired on first use
      if (!reopen && lease != null) {
        SharedClients.Lease l = lease;
        lease = null;
        clients = null;
        l.close();
      }
    }
    if (reopen) {
      initialize(properties);
    }
  }

  @Override
  public List<StorageCredential> credentials() {
    synchronized (this) {
      return List.copyOf(storageCredentials);
    }
  }

  /**
   * A file whose length is learnt when first needed, not now: from the first GET of a file read whole (a
   * {@code metadata.json}, a manifest list), else with one HEAD.
   */
  @Override
  public InputFile newInputFile(String path) {
    S3Location object = object(path);
    FileIOClients c = clients();
    return new SlipstreamInputFile(path, object, -1, c.reader(path), c.metrics(), lease);
  }

  /** A file of a known length: read with no HEAD. */
  @Override
  public InputFile newInputFile(String path, long length) {
    if (length < 0) {
      throw new IllegalArgumentException("negative length " + length + " for " + path);
    }
    S3Location object = object(path);
    FileIOClients c = clients();
    return new SlipstreamInputFile(path, object, length, c.reader(path), c.metrics(), lease);
  }

  /** S3FileIO's output file; once written, Slipstream forgets what it knew of the object. */
  @Override
  public OutputFile newOutputFile(String path) {
    S3Location object = object(path);
    FileIOClients c = clients();
    return new ForgettingOutputFile(c.writer().newOutputFile(path), () -> c.changed(object),
        this::newInputFile, lease);
  }

  @Override
  public void deleteFile(String path) {
    S3Location object = object(path);
    FileIOClients c = clients();
    try {
      c.writer().deleteFile(path);
    } finally {
      c.changed(object);
      Reference.reachabilityFence(this); // a copy's lease, until the delete is done
    }
  }

  /**
   * S3FileIO's bulk delete (batched DeleteObjects), handed {@link #BATCHES_PER_CHUNK} of its batches at a
   * time, so that the paths held at once are a chunk's however many come (Iceberg's expiry may hand over a
   * million). Slipstream forgets each path once, when its chunk's delete has returned: the object is gone
   * then, so no answer from before stands after, and an answer to a read sent before the forget is not kept
   * (the client's {@link dev.slipstream.WriteLog}). Within a chunk S3FileIO deletes its batches on its own
   * threads, as it would the whole. A chunk whose deletes partly fail does not stop the next ones: the
   * failures are added up and thrown at the end, as S3FileIO does for its batches. A path that is no S3
   * location fails the call, naming it, once the paths before it are deleted.
   */
  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    Objects.requireNonNull(paths, "paths");
    FileIOClients c = clients();
    int chunkSize = BATCHES_PER_CHUNK * Integer.parseInt(properties.getOrDefault(
        S3FileIOProperties.DELETE_BATCH_SIZE, String.valueOf(S3FileIOProperties.DELETE_BATCH_SIZE_DEFAULT)).trim());
    int failed = 0;
    try {
      Iterator<String> it = paths.iterator();
      while (it.hasNext()) {
        List<String> chunk = new ArrayList<>();
        List<S3Location> objects = new ArrayList<>();
        try {
          while (it.hasNext() && chunk.size() < chunkSize) {
            String path = it.next();
            objects.add(object(path));
            chunk.add(path);
          }
        } finally {
          failed += deleteChunk(c, chunk, objects);
        }
      }
    } finally {
      Reference.reachabilityFence(this);
    }
    if (failed > 0) {
      throw new BulkDeletionFailureException(failed);
    }
  }

  /** Deletes {@code chunk} through S3FileIO and forgets its objects, however that ends; returns the paths it failed to delete. */
  private static int deleteChunk(FileIOClients c, List<String> chunk, List<S3Location> objects) {
    if (chunk.isEmpty()) {
      return 0;
    }
    try {
      c.writer().deleteFiles(chunk);
      return 0;
    } catch (BulkDeletionFailureException e) {
      return e.numberFailedObjects();
    } finally {
      objects.forEach(c::changed);
    }
  }

  /** S3FileIO's listing; its pages are fetched as it is iterated, so the iterator keeps this FileIO's clients open. */
  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    checkScheme(prefix);
    Iterable<FileInfo> listing = clients().writer().listPrefix(prefix);
    return () -> new Iterator<>() {
      private final Iterator<FileInfo> it = listing.iterator();
      /** Reaches a copy's lease while the listing is iterated. */
      @SuppressWarnings("unused")
      private final Object holder = SlipstreamFileIO.this;

      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public FileInfo next() {
        return it.next();
      }
    };
  }

  @Override
  public void deletePrefix(String prefix) {
    checkScheme(prefix);
    FileIOClients c = clients();
    try {
      c.writer().deletePrefix(prefix);
    } finally {
      forgetUnder(c, prefix);
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Closes the Slipstream client and the S3FileIO. Idempotent. A deserialized copy's clients are the
   * JVM's for its properties, shared with the other copies: the copy releases its hold, and the clients
   * close once no copy, input file or open stream uses them ({@link SharedClients}).
   */
  @Override
  public void close() {
    FileIOClients c;
    SharedClients.Lease l;
    synchronized (this) {
      closed = true;
      c = clients;
      l = lease;
      clients = null;
      lease = null;
    }
    release(c, l);
  }

  /** Closes owned clients, or ends the lease on shared ones. */
  private static void release(FileIOClients owned, SharedClients.Lease lease) {
    if (lease != null) {
      lease.close();
    } else if (owned != null) {
      owned.close();
    }
  }

  /**
   * The Slipstream client reads of paths under no storage credential's prefix go through (all reads,
   * without storage credentials; built on first use in a deserialized copy). A copy's client is shared,
   * and closed once no copy of these properties uses it: use it only while this FileIO is open and
   * reachable.
   */
  public Slipstream slipstream() {
    return clients().reader();
  }

  /** The Slipstream client a read of {@code path} goes through (the one over S3FileIO's client for it): for tests. */
  Slipstream slipstream(String path) {
    return clients().reader(path);
  }

  private FileIOClients clients() {
    FileIOClients c = clients;
    if (c != null) {
      return c;
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("SlipstreamFileIO is closed");
      }
      if (clients == null) {
        // A copy that came over the wire (or one never initialized): it may never be closed.
        SharedClients.Lease l = SharedClients.JVM.acquire(properties, storageCredentials);
        lease = l;
        clients = l.clients();
      }
      return clients;
    }
  }

  /** The object at {@code path}; an {@link IllegalArgumentException} naming it if it is no S3 location. */
  static S3Location object(String path) {
    Objects.requireNonNull(path, "path");
    return S3Location.parse(path);
  }

  private static void checkScheme(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!prefix.startsWith("s3://") && !prefix.startsWith("s3a://") && !prefix.startsWith("s3n://")) {
      throw new IllegalArgumentException("not an S3 location (expected s3://, s3a:// or s3n://): '" + prefix + "'");
    }
  }

  /** Forgets the answers under a prefix; a whole bucket ({@code s3://bucket/} or {@code s3://bucket}) is every key in it. */
  private static void forgetUnder(FileIOClients reader, String prefix) {
    String rest = prefix.substring(prefix.indexOf("://") + 3);
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    if (!bucket.isEmpty()) {
      reader.changed(bucket, slash < 0 ? "" : rest.substring(slash + 1));
    }
  }
}

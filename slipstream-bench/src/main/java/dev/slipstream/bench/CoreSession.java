/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.ObjectRef;
import dev.slipstream.OpenOptions;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.io.InputFile;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;

/** A {@link ReadSession} on one Slipstream client and the S3 client it reads through. */
final class CoreSession implements ReadSession {
  private final Slipstream slipstream;
  private final S3Client client;
  private final String bucket;
  private final java.nio.file.Path cacheDir;

  CoreSession(Slipstream slipstream, S3Client client, String bucket, java.nio.file.Path cacheDir) {
    this.slipstream = slipstream;
    this.client = client;
    this.bucket = bucket;
    this.cacheDir = cacheDir;
  }

  @Override
  public FileRef stat(String key) throws IOException {
    try {
      HeadObjectResponse h = client.headObject(r -> r.bucket(bucket).key(key));
      return new FileRef(key, h.contentLength(), h.eTag(), null);
    } catch (SdkException e) {
      throw new IOException("HEAD s3://" + bucket + "/" + key + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<FileRef> list(String prefix) throws IOException {
    List<FileRef> files = new ArrayList<>();
    try {
      for (S3Object o : client.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix).delimiter("/")).contents()) {
        files.add(new FileRef(o.key(), o.size(), o.eTag(), null));
      }
    } catch (SdkException e) {
      throw new IOException("LIST s3://" + bucket + "/" + prefix + ": " + e.getMessage(), e);
    }
    return files;
  }

  @Override
  public List<FileRef> listDirectories(List<String> directories) throws IOException {
    try (dev.slipstream.Listing l = slipstream.lister().listDirectories(bucket, directories, false)) {
      return refs(l);
    }
  }

  @Override
  public List<FileRef> listRecursive(String prefix) throws IOException {
    try (dev.slipstream.Listing l = slipstream.lister().list(bucket, prefix)) {
      return refs(l);
    }
  }

  private static List<FileRef> refs(dev.slipstream.Listing l) throws IOException {
    List<FileRef> files = new ArrayList<>();
    while (l.hasNext()) {
      dev.slipstream.ListEntry e = l.next();
      if (!e.isDirectoryMarker()) {
        files.add(new FileRef(e.key(), e.size(), e.etag(), null));
      }
    }
    return files;
  }

  /** Open-ahead over the listed files: opening file i fetches the first blocks of the next ones. */
  @Override
  public void readingInOrder(List<FileRef> files) {
    List<ObjectRef> refs = new ArrayList<>(files.size());
    for (FileRef f : files) {
      refs.add(new ObjectRef(new S3Location(bucket, f.key()), f.length(), f.etag()));
    }
    slipstream.readingInOrder(refs);
  }

  SlipstreamInputStream openStream(FileRef file) throws IOException {
    return slipstream.open(new S3Location(bucket, file.key()), OpenOptions.known(file.length(), file.etag()));
  }

  @Override
  public ObjectStream open(FileRef file) throws IOException {
    return stream(openStream(file));
  }

  @Override
  public ObjectStream openWhole(FileRef file) throws IOException {
    return stream(slipstream.open(new S3Location(bucket, file.key()),
        OpenOptions.known(file.length(), file.etag()).withPolicy(dev.slipstream.ReadPolicy.SEQUENTIAL)));
  }

  private static ObjectStream stream(SlipstreamInputStream in) {
    return ObjectStream.of(in, in::readFully);
  }

  @Override
  public InputFile parquetFile(FileRef file) {
    return new CoreInputFile(this, file);
  }

  @Override
  public ParquetReadOptions parquetOptions() {
    // As a program without Hadoop sets them. parquet-java's plain builder() creates a Hadoop Configuration,
    // and parses its XML resources, on every call; the reader writes to its configuration, so one each.
    return ParquetReadOptions.builder(new PlainParquetConfiguration()).build();
  }

  @Override
  public long memoryPoolBytes() {
    return slipstream.memoryHeld();
  }

  @Override
  public java.util.Map<String, Long> slipstreamCounters() {
    return slipstream.statistics().snapshot();
  }

  @Override
  public void close() {
    try {
      slipstream.close();
    } finally {
      client.close();
      SessionCache.delete(cacheDir);
    }
  }
}

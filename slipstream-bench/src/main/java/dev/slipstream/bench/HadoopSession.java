/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.util.functional.FutureIO;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;

/**
 * A {@link ReadSession} on one Hadoop FileSystem instance. Objects are opened as tasks open them:
 * {@code openFile()} with the FileStatus from the listing or the driver, so no HEAD request; Parquet
 * files through Parquet's own {@link HadoopInputFile#fromStatus}, which does the same with the read policy
 * {@code parquet, vector, random, adaptive}.
 */
final class HadoopSession implements ReadSession {
  private final FileSystem fs;
  private final Configuration conf;
  private final Path root;
  private final java.nio.file.Path cacheDir;

  /** @param cacheDir Slipstream's disk cache directory of this session, deleted on close; or null */
  HadoopSession(FileSystem fs, Configuration conf, URI root, java.nio.file.Path cacheDir) {
    this.fs = fs;
    this.conf = conf;
    this.root = new Path(root);
    this.cacheDir = cacheDir;
  }

  @Override
  public FileRef stat(String key) throws IOException {
    return ref(key, fs.getFileStatus(new Path(root, key)));
  }

  @Override
  public List<FileRef> list(String prefix) throws IOException {
    List<FileRef> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(new Path(root, prefix), false);
    while (it.hasNext()) {
      LocatedFileStatus st = it.next();
      String key = st.getPath().toUri().getPath().substring(1);
      files.add(ref(key, st));
    }
    return files;
  }

  @Override
  public List<FileRef> listDirectories(List<String> directories) throws IOException {
    Path[] paths = new Path[directories.size()];
    for (int i = 0; i < paths.length; i++) {
      paths[i] = new Path(root, directories.get(i));
    }
    List<FileRef> files = new ArrayList<>();
    for (FileStatus st : fs.listStatus(paths)) {
      if (st.isFile()) {
        files.add(ref(st.getPath().toUri().getPath().substring(1), st));
      }
    }
    return files;
  }

  @Override
  public List<FileRef> listEachDirectory(List<String> directories) throws IOException {
    List<FileRef> files = new ArrayList<>();
    for (String d : directories) {
      for (FileStatus st : fs.listStatus(new Path(root, d))) {
        if (st.isFile()) {
          files.add(ref(st.getPath().toUri().getPath().substring(1), st));
        }
      }
    }
    return files;
  }

  @Override
  public List<FileRef> listInputGlob(String glob) throws IOException {
    // FileInputFormat.singleThreadedListStatus's calls, on this session's FileSystem instance
    org.apache.hadoop.fs.PathFilter hidden = p -> !p.getName().startsWith("_") && !p.getName().startsWith(".");
    FileStatus[] matches = fs.globStatus(new Path(root, glob), hidden);
    if (matches == null || matches.length == 0) {
      throw new IOException("Input Pattern " + glob + " matches 0 files");
    }
    List<FileRef> files = new ArrayList<>();
    for (FileStatus m : matches) {
      if (!m.isDirectory()) {
        files.add(ref(m.getPath().toUri().getPath().substring(1), m));
        continue;
      }
      RemoteIterator<LocatedFileStatus> it = fs.listLocatedStatus(m.getPath());
      while (it.hasNext()) {
        LocatedFileStatus st = it.next();
        if (st.isFile() && hidden.accept(st.getPath())) {
          files.add(ref(st.getPath().toUri().getPath().substring(1), st));
        }
      }
    }
    return files;
  }

  @Override
  public List<FileRef> listRecursive(String prefix) throws IOException {
    List<FileRef> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(new Path(root, prefix), true);
    while (it.hasNext()) {
      LocatedFileStatus st = it.next();
      files.add(ref(st.getPath().toUri().getPath().substring(1), st));
    }
    return files;
  }

  private static FileRef ref(String key, FileStatus st) {
    String etag = st instanceof EtagSource e ? e.getEtag() : null;
    return new FileRef(key, st.getLen(), etag, st);
  }

  /**
   * Slipstream's FileSystem is told the order (its explicit open-ahead API, as a task knowing its split
   * would call it); S3A's FileSystems have nothing of the kind and are left as they are.
   */
  @Override
  public void readingInOrder(List<FileRef> files) {
    if (fs instanceof SlipstreamS3AFileSystem sfs) {
      List<FileStatus> statuses = new ArrayList<>(files.size());
      for (FileRef f : files) {
        statuses.add((FileStatus) f.handle());
      }
      sfs.readingInOrder(statuses);
    }
  }

  @Override
  public ObjectStream open(FileRef file) throws IOException {
    FileStatus st = (FileStatus) file.handle();
    return stream(FutureIO.awaitFuture(fs.openFile(st.getPath()).withFileStatus(st).build()));
  }

  @Override
  public ObjectStream openWhole(FileRef file) throws IOException {
    FileStatus st = (FileStatus) file.handle();
    // As FileUtil.copy opens its source (Hadoop 3.4+): the status, and the whole-file read policy.
    return stream(FutureIO.awaitFuture(fs.openFile(st.getPath()).withFileStatus(st)
        .opt("fs.option.openfile.read.policy", "whole-file").build()));
  }

  @Override
  public ObjectStream openPath(String key) throws IOException {
    return stream(fs.open(new Path(root, key)));
  }

  private static ObjectStream stream(FSDataInputStream in) {
    return ObjectStream.of(in, in::readFully);
  }

  @Override
  public FileSystem hadoopFileSystem() {
    return fs;
  }

  @Override
  public InputFile parquetFile(FileRef file) throws IOException {
    // Parquet looks the FileSystem up by the status's path: Hadoop's cache gives it this session's instance.
    return HadoopInputFile.fromStatus((FileStatus) file.handle(), conf);
  }

  @Override
  public ParquetReadOptions parquetOptions() {
    return HadoopReadOptions.builder(conf).build();
  }

  @Override
  public long memoryPoolBytes() {
    return fs instanceof SlipstreamS3AFileSystem sfs ? sfs.getSlipstreamMemoryHeld() : 0;
  }

  /** The {@code slipstream_*} counters of Slipstream's FileSystem (its IOStatistics), prefix removed. */
  @Override
  public java.util.Map<String, Long> slipstreamCounters() {
    java.util.Map<String, Long> counters = new java.util.TreeMap<>();
    if (fs instanceof SlipstreamS3AFileSystem sfs) {
      sfs.getIOStatistics().counters().forEach((name, value) -> {
        if (name.startsWith(COUNTER_PREFIX)) {
          counters.put(name.substring(COUNTER_PREFIX.length()), value);
        }
      });
    }
    return counters;
  }

  private static final String COUNTER_PREFIX = "slipstream_";

  @Override
  public void close() throws IOException {
    try {
      fs.close();
    } finally {
      SessionCache.delete(cacheDir);
    }
  }
}

/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.slipstream.internal.util.DaemonThreads;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A Prometheus scrape endpoint for a process with no web server of its own: {@code GET /metrics} answers
 * with the text format of a Micrometer Prometheus registry holding the given meters, e.g.
 * {@code PrometheusEndpoint.start(new InetSocketAddress("127.0.0.1", 9464), new SlipstreamMetrics(client))}.
 * It binds where it is told, one thread answers, and {@link #close()} stops it. A service that already
 * serves Prometheus (Spring Boot, Micronaut) binds {@link SlipstreamMetrics} to its own registry instead.
 * Needs {@code io.micrometer:micrometer-registry-prometheus} on the class path (an optional dependency).
 */
public final class PrometheusEndpoint implements AutoCloseable {
  /** The path scraped. */
  public static final String PATH = "/metrics";

  private final HttpServer server;
  private final ExecutorService thread;
  private final PrometheusMeterRegistry registry;

  private PrometheusEndpoint(HttpServer server, ExecutorService thread, PrometheusMeterRegistry registry) {
    this.server = server;
    this.thread = thread;
    this.registry = registry;
  }

  /**
   * Serves {@code binders}' meters at {@code address} (port 0: one the system chooses; see {@link #uri()}).
   *
   * @throws IOException if the address cannot be bound, naming it
   */
  public static PrometheusEndpoint start(InetSocketAddress address, MeterBinder... binders) throws IOException {
    Objects.requireNonNull(address, "address");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    for (MeterBinder b : binders) {
      b.bindTo(registry);
    }
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      registry.close();
      throw new IOException("cannot serve Prometheus metrics at " + address + ": " + e.getMessage(), e);
    }
    ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("slipstream-prometheus-"));
    server.setExecutor(thread);
    server.createContext(PATH, exchange -> answer(exchange, registry));
    server.start();
    return new PrometheusEndpoint(server, thread, registry);
  }

  private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
    try (exchange) {
      if (!"GET".equals(exchange.getRequestMethod()) || !PATH.equals(exchange.getRequestURI().getPath())) {
        exchange.sendResponseHeaders("GET".equals(exchange.getRequestMethod()) ? 404 : 405, -1);
        return;
      }
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Where to scrape, e.g. {@code http://127.0.0.1:9464/metrics}. */
  public URI uri() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().getHostAddress();
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + PATH);
  }

  /** Stops answering and releases the port and the thread. */
  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
    registry.close();
  }
}

// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.context.ContextStorageProvider;

/**
 * Service-loader entry point ({@code META-INF/services/io.opentelemetry.context.ContextStorageProvider}):
 * with vtscope-otel.jar on the class path, OpenTelemetry's context storage publishes to vtscope with
 * no change to the application.
 *
 * <p>Interaction with other providers (OpenTelemetry's {@code LazyStorage} rules): if this is the
 * only provider it is used; if several providers are on the class path OpenTelemetry uses none of
 * them (it logs a warning and falls back to the default storage) unless the system property
 * {@code io.opentelemetry.context.contextStorageProvider} names one, e.g.
 * {@code io.vtscope.otel.VtScopeContextStorageProvider}; the value {@code default} disables all
 * providers. When another provider must win, call {@link VtScopeOtel#install()} instead: wrappers
 * apply on top of whichever storage was chosen (and on top of the strict-context storage).
 */
public final class VtScopeContextStorageProvider implements ContextStorageProvider {
    @Override
    public ContextStorage get() {
        return VtScopeContextStorage.wrap(ContextStorage.defaultStorage());
    }
}

package io.vtscope.otel;

import io.opentelemetry.context.ContextStorage;

/** Explicit installation, for applications that disable service loading or use another storage provider. */
public final class VtScopeOtel {
    /**
     * Registers the vtscope wrapper around whatever {@link ContextStorage} OpenTelemetry selects.
     * Must run before the first use of {@code Context} (e.g. in a static initializer of the main
     * class); later calls are ignored by OpenTelemetry. Harmless together with the service-loader
     * provider: the storage is wrapped once.
     */
    public static void install() {
        ContextStorage.addWrapper(VtScopeContextStorage::wrap);
    }

    private VtScopeOtel() {}
}

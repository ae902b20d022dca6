// SPDX-License-Identifier: Apache-2.0
package io.vtscope.otel;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.context.ContextStorage;
import io.opentelemetry.sdk.resources.Resource;
import io.vtscope.internal.ProcessResource;
import java.util.LinkedHashMap;
import java.util.Map;

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

    /**
     * Publishes {@code resource} into libvtscope's OTEP 4719 process context (replacing the one
     * published before), for applications that build their SDK without autoconfiguration (with
     * it, {@link VtScopeResourceCustomizer} does this). Does nothing unless this process maps
     * libvtscope. Returns the number of attributes published, or a negative vtscope result code.
     */
    public static int publishResource(Resource resource) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        resource.getAttributes().forEach((AttributeKey<?> key, Object value) -> attributes.put(key.getKey(), value));
        return ProcessResource.publish(attributes);
    }

    private VtScopeOtel() {}
}

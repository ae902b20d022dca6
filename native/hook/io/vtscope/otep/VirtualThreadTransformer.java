package io.vtscope.otep;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.ReturnInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;

/**
 * Rewrites {@code java.lang.VirtualThread} (JDK 25: src/java.base/share/classes/java/lang/
 * VirtualThread.java) so its mount and unmount call {@link MountHook}, with the JDK's own
 * ClassFile API. libvtscope.so calls {@link #transform} from its ClassFileLoadHook during a
 * RetransformClasses of VirtualThread, so transformations of other agents are kept.
 *
 * <ul>
 *   <li>{@code mount()}: before its return, after {@code carrier.setCurrentThread(this)}:
 *       {@code MountHook.mounted(threadId())}. Every mount goes through it: the first one, after
 *       a park, a yield, a blocking monitor enter or Object.wait (runContinuation calls mount()
 *       before cont.run()).
 *   <li>{@code run(Runnable)}: at its start, once per thread, mounted, inside the continuation:
 *       {@code MountHook.started(threadId())}, which claims the thread's record (the first
 *       mount, just before, found none).
 *   <li>{@code unmount()}: at its start, before {@code carrier.setCurrentThread(carrier)}:
 *       {@code MountHook.unmounted()}. Every unmount goes through it (runContinuation's finally).
 *   <li>{@code afterDone(boolean)}: at its start: {@code MountHook.terminated(threadId())}, which
 *       releases the thread's record; it runs on the carrier after the last unmount.
 * </ul>
 *
 * mount, unmount and afterDone run in runContinuation's frame on the carrier, outside the
 * continuation; run's call returns before the task runs. No native call can yield, so none pins
 * the virtual thread.
 */
public final class VirtualThreadTransformer {
    private VirtualThreadTransformer() {}

    private static final String RUN = "(Ljava/lang/Runnable;)V";

    // The descriptors are built inside transform, from ConstantDescs, and this class has no
    // static initialiser: it is initialised at VMInit, and java.lang.constant initialised in
    // another order than ConstantDescs first fails for good (ConstantUtils.forPrimitiveType
    // reads ConstantDescs.CD_int while ConstantDescs is still being initialised: seen as
    // NoClassDefFoundError in the application's first lambda).
    private static ClassDesc virtualThread() {
        return ClassDesc.of("java.lang.VirtualThread");
    }

    private static ClassDesc hook() {
        return ClassDesc.of("io.vtscope.otep.MountHook");
    }

    /**
     * The transformed class file, or null when the class does not have the shape this rewrite
     * was written for (then libvtscope.so falls back to the JVMTI events). Throws nothing.
     */
    public static byte[] transform(byte[] classFile) {
        try {
            ConstantDescs.CD_void.descriptorString();  // ConstantDescs first (see above)
            ClassFile cf = ClassFile.of();
            ClassModel model = cf.parse(classFile);
            if (!model.thisClass().asSymbol().equals(virtualThread())
                    || !has(model, "mount", "()V") || !has(model, "unmount", "()V")
                    || !has(model, "afterDone", "(Z)V") || !has(model, "run", RUN)) {
                return null;
            }
            return cf.transformClass(model, (ClassTransform) (clb, element) -> {
                if (element instanceof MethodModel m && hooked(m)) {
                    String name = m.methodName().stringValue();
                    clb.transformMethod(m, (mb, me) -> {
                        if (me instanceof CodeModel code) {
                            mb.withCode(cb -> rewrite(name, code, cb));
                        } else {
                            mb.with(me);
                        }
                    });
                } else {
                    clb.with(element);
                }
            });
        } catch (Throwable t) {
            return null;
        }
    }

    private static void rewrite(String method, CodeModel code, CodeBuilder cb) {
        switch (method) {
            case "unmount" -> cb.invokestatic(hook(), "unmounted", MethodTypeDesc.of(ConstantDescs.CD_void));
            case "run" -> callWithThreadId(cb, "started");
            case "afterDone" -> callWithThreadId(cb, "terminated");
            default -> {}
        }
        for (CodeElement e : code) {
            if (method.equals("mount") && e instanceof ReturnInstruction) callWithThreadId(cb, "mounted");
            cb.with(e);
        }
    }

    // MountHook.name(this.threadId())
    private static void callWithThreadId(CodeBuilder cb, String name) {
        cb.aload(0)
                .invokevirtual(virtualThread(), "threadId", MethodTypeDesc.of(ConstantDescs.CD_long))
                .invokestatic(hook(), name, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_long));
    }

    private static boolean hooked(MethodModel m) {
        return is(m, "mount", "()V") || is(m, "unmount", "()V") || is(m, "afterDone", "(Z)V") || is(m, "run", RUN);
    }

    private static boolean has(ClassModel model, String name, String descriptor) {
        return model.methods().stream().anyMatch(m -> is(m, name, descriptor));
    }

    private static boolean is(MethodModel m, String name, String descriptor) {
        return m.methodName().equalsString(name) && m.methodType().equalsString(descriptor);
    }
}

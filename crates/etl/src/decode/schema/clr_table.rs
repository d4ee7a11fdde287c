//! Our table of the .NET runtime events, written from the public runtime
//! manifest (dotnet/runtime `src/coreclr/vm/ClrEtwAll.man`, MIT): one line
//! per (provider, event id, version): provider (R Runtime, D Rundown,
//! P Private), id, version, manifest task and opcode, then the template's
//! fields in order as `Name:type` (u8..u64, i32, i64, x32/x64 hex, ptr,
//! str UTF-16z, guid, bool, f32, f64, bin), `=Map` for a value map,
//! `[Field]` for an array counted by an earlier field, `{a:t,b:t}` for a
//! struct element.

pub const TABLE: &str = r"
# Microsoft-Windows-DotNETRuntime: garbage collection
R 1 1 GarbageCollection win:Start Count:u32 Depth:u32 Reason:u32=GCReasonMap Type:u32=GCTypeMap ClrInstanceID:u16
R 1 2 GarbageCollection win:Start Count:u32 Depth:u32 Reason:u32=GCReasonMap Type:u32=GCTypeMap ClrInstanceID:u16 ClientSequenceNumber:u64
R 2 1 GarbageCollection win:Stop Count:u32 Depth:u32 ClrInstanceID:u16
R 3 1 GarbageCollection GCRestartEEEnd ClrInstanceID:u16
R 4 1 GarbageCollection GCHeapStats GenerationSize0:x64 TotalPromotedSize0:x64 GenerationSize1:x64 TotalPromotedSize1:x64 GenerationSize2:x64 TotalPromotedSize2:x64 GenerationSize3:x64 TotalPromotedSize3:x64 FinalizationPromotedSize:x64 FinalizationPromotedCount:u64 PinnedObjectCount:u32 SinkBlockCount:u32 GCHandleCount:u32 ClrInstanceID:u16
R 4 2 GarbageCollection GCHeapStats GenerationSize0:x64 TotalPromotedSize0:x64 GenerationSize1:x64 TotalPromotedSize1:x64 GenerationSize2:x64 TotalPromotedSize2:x64 GenerationSize3:x64 TotalPromotedSize3:x64 FinalizationPromotedSize:x64 FinalizationPromotedCount:u64 PinnedObjectCount:u32 SinkBlockCount:u32 GCHandleCount:u32 ClrInstanceID:u16 GenerationSize4:x64 TotalPromotedSize4:x64
R 5 1 GarbageCollection GCCreateSegment Address:x64 Size:x64 Type:u32=GCSegmentTypeMap ClrInstanceID:u16
R 6 1 GarbageCollection GCFreeSegment Address:x64 ClrInstanceID:u16
R 7 1 GarbageCollection GCRestartEEBegin ClrInstanceID:u16
R 8 1 GarbageCollection GCSuspendEEEnd ClrInstanceID:u16
R 9 1 GarbageCollection GCSuspendEEBegin Reason:u32=GCSuspendEEReasonMap Count:u32 ClrInstanceID:u16
R 10 1 GarbageCollection GCAllocationTick AllocationAmount:x32 AllocationKind:u32=GCAllocationKindMap ClrInstanceID:u16
R 10 2 GarbageCollection GCAllocationTick AllocationAmount:x32 AllocationKind:u32=GCAllocationKindMap ClrInstanceID:u16 AllocationAmount64:x64 TypeID:ptr TypeName:str HeapIndex:u32
R 10 3 GarbageCollection GCAllocationTick AllocationAmount:x32 AllocationKind:u32=GCAllocationKindMap ClrInstanceID:u16 AllocationAmount64:x64 TypeID:ptr TypeName:str HeapIndex:u32 Address:ptr
R 10 4 GarbageCollection GCAllocationTick AllocationAmount:x32 AllocationKind:u32=GCAllocationKindMap ClrInstanceID:u16 AllocationAmount64:x64 TypeID:ptr TypeName:str HeapIndex:u32 Address:ptr ObjectSize:u64
R 11 1 GarbageCollection GCCreateConcurrentThread ClrInstanceID:u16
R 12 1 GarbageCollection GCTerminateConcurrentThread ClrInstanceID:u16
R 13 1 GarbageCollection GCFinalizersEnd Count:u32 ClrInstanceID:u16
R 14 1 GarbageCollection GCFinalizersBegin ClrInstanceID:u16
R 21 0 GarbageCollection GCBulkSurvivingObjectRanges Index:u32 Count:u32 ClrInstanceID:u16 Values:{RangeBase:ptr,RangeLength:u64}[Count]
R 22 0 GarbageCollection GCBulkMovedObjectRanges Index:u32 Count:u32 ClrInstanceID:u16 Values:{OldRangeBase:ptr,NewRangeBase:ptr,RangeLength:u64}[Count]
R 23 0 GarbageCollection GCGenerationRange Generation:u8 RangeStart:ptr RangeUsedLength:u64 RangeReservedLength:u64 ClrInstanceID:u16
R 25 0 GarbageCollection GCMarkStackRoots HeapNum:u32 ClrInstanceID:u16
R 26 0 GarbageCollection GCMarkFinalizeQueueRoots HeapNum:u32 ClrInstanceID:u16
R 27 0 GarbageCollection GCMarkHandles HeapNum:u32 ClrInstanceID:u16
R 28 0 GarbageCollection GCMarkOlderGenerationRoots HeapNum:u32 ClrInstanceID:u16
R 29 0 GarbageCollection FinalizeObject TypeID:ptr ObjectID:ptr ClrInstanceID:u16
R 30 0 GarbageCollection SetGCHandle HandleID:ptr ObjectID:ptr Kind:u32=GCHandleKindMap Generation:u32 AppDomainID:x64 ClrInstanceID:u16
R 31 0 GarbageCollection DestroyGCHandle HandleID:ptr ClrInstanceID:u16
R 33 0 GarbageCollection PinObjectAtGCTime HandleID:ptr ObjectID:ptr ObjectSize:u64 TypeName:str ClrInstanceID:u16
R 35 0 GarbageCollection Triggered Reason:u32=GCReasonMap ClrInstanceID:u16
R 200 0 GarbageCollection IncreaseMemoryPressure BytesAllocated:u64 ClrInstanceID:u16
R 201 0 GarbageCollection DecreaseMemoryPressure BytesFreed:u64 ClrInstanceID:u16
R 202 0 GarbageCollection GCMarkWithType HeapNum:u32 ClrInstanceID:u16 Type:u32=GCRootKindMap Bytes:u64
R 203 2 GarbageCollection GCJoin Heap:u32 JoinTime:u32 JoinType:u32 ClrInstanceID:u16 JoinID:u32
R 204 3 GarbageCollection GCPerHeapHistory ClrInstanceID:u16 FreeListAllocated:ptr FreeListRejected:ptr EndOfSegAllocated:ptr CondemnedAllocated:ptr PinnedAllocated:ptr PinnedAllocatedAdvance:ptr RunningFreeListEfficiency:u32 CondemnReasons0:u32 CondemnReasons1:u32 CompactMechanisms:u32 ExpandMechanisms:u32 HeapIndex:u32 ExtraGen0Commit:ptr Count:u32 Values:{SizeBefore:ptr,FreeListBefore:ptr,FreeObjBefore:ptr,SizeAfter:ptr,FreeListAfter:ptr,FreeObjAfter:ptr,In:ptr,PinnedSurv:ptr,NonePinnedSurv:ptr,NewAllocation:ptr}[Count]
R 205 2 GarbageCollection GCGlobalHeapHistory FinalYoungestDesired:x64 NumHeaps:i32 CondemnedGeneration:u32 Gen0ReductionCount:u32 Reason:u32 GlobalMechanisms:u32 ClrInstanceID:u16 PauseMode:u32 MemoryPressure:u32
R 205 3 GarbageCollection GCGlobalHeapHistory FinalYoungestDesired:x64 NumHeaps:i32 CondemnedGeneration:u32 Gen0ReductionCount:u32 Reason:u32 GlobalMechanisms:u32 ClrInstanceID:u16 PauseMode:u32 MemoryPressure:u32 CondemnReasons0:u32 CondemnReasons1:u32
# 205 v4, 208 and 209 (.NET 5+): layouts as PerfView's ClrTraceEventParser
# reads them (GCGlobalHeapHistoryTraceData, GCLOHCompactTraceData: 64-bit
# elements with 4 bytes before TotalRefs, GCFitBucketInfoTraceData).
R 205 4 GarbageCollection GCGlobalHeapHistory FinalYoungestDesired:x64 NumHeaps:i32 CondemnedGeneration:u32 Gen0ReductionCount:u32 Reason:u32 GlobalMechanisms:u32 ClrInstanceID:u16 PauseMode:u32 MemoryPressure:u32 CondemnReasons0:u32 CondemnReasons1:u32 Count:u32 Times:u32[Count]
R 208 0 GarbageCollection GCLOHCompact ClrInstanceID:u16 Count:u16 Values:{TimePlan:u32,TimeCompact:u32,TimeRelocate:u32,Reserved:u32,TotalRefs:ptr,ZeroRefs:ptr}[Count]
R 209 0 GarbageCollection GCFitBucketInfo ClrInstanceID:u16 BucketKind:u16 TotalSize:u64 Count:u16 Values:{Index:u32,Count:u32,Size:ptr}[Count]
# Type, thread pool, exceptions, stacks
R 15 0 Type BulkType Count:u32 ClrInstanceID:u16 Values:{TypeID:x64,ModuleID:x64,TypeNameID:u32,Flags:u32=TypeFlagsMap,CorElementType:u8,Name:str,TypeParameterCount:u32,TypeParameters:x64[TypeParameterCount]}[Count]
R 50 0 ThreadPoolWorkerThread win:Start ActiveWorkerThreadCount:u32 RetiredWorkerThreadCount:u32 ClrInstanceID:u16
R 51 0 ThreadPoolWorkerThread win:Stop ActiveWorkerThreadCount:u32 RetiredWorkerThreadCount:u32 ClrInstanceID:u16
R 80 1 Exception win:Start ExceptionType:str ExceptionMessage:str ExceptionEIP:ptr ExceptionHRESULT:x32 ExceptionFlags:u16=ExceptionThrownFlagsMap ClrInstanceID:u16
R 82 0 CLRStack CLRStackWalk ClrInstanceID:u16 Reserved1:u8 Reserved2:u8 FrameCount:u32 Stack:ptr[FrameCount]
R 85 0 AppDomainResourceManagement ThreadCreated ManagedThreadID:x64 AppDomainID:x64 Flags:u32 ManagedThreadIndex:u32 OSThreadID:u32 ClrInstanceID:u16
# Methods and loader
R 141 1 CLRMethod MethodLoad MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16
R 141 2 CLRMethod MethodLoad MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16 ReJITID:x64
R 142 1 CLRMethod MethodUnload MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16
R 142 2 CLRMethod MethodUnload MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16 ReJITID:x64
R 143 1 CLRMethod MethodLoadVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16
R 143 2 CLRMethod MethodLoadVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16 ReJITID:x64
R 144 1 CLRMethod MethodUnloadVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16
R 144 2 CLRMethod MethodUnloadVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16 ReJITID:x64
R 145 1 CLRMethod MethodJittingStarted MethodID:x64 ModuleID:x64 MethodToken:x32 MethodILSize:x32 MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16
R 190 0 CLRMethod MethodILToNativeMap MethodID:x64 ReJITID:x64 MethodExtent:u8 CountOfMapEntries:u16 ILOffsets:u32[CountOfMapEntries] NativeOffsets:u32[CountOfMapEntries] ClrInstanceID:u16
R 151 1 CLRLoader DomainModuleLoad ModuleID:x64 AssemblyID:x64 AppDomainID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16
R 152 1 CLRLoader ModuleLoad ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16
R 152 2 CLRLoader ModuleLoad ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16 ManagedPdbSignature:guid ManagedPdbAge:u32 ManagedPdbBuildPath:str NativePdbSignature:guid NativePdbAge:u32 NativePdbBuildPath:str
R 153 1 CLRLoader ModuleUnload ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16
R 153 2 CLRLoader ModuleUnload ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16 ManagedPdbSignature:guid ManagedPdbAge:u32 ManagedPdbBuildPath:str NativePdbSignature:guid NativePdbAge:u32 NativePdbBuildPath:str
R 154 1 CLRLoader AssemblyLoad AssemblyID:x64 AppDomainID:x64 BindingID:x64 AssemblyFlags:u32=AssemblyFlagsMap FullyQualifiedAssemblyName:str ClrInstanceID:u16
R 155 1 CLRLoader AssemblyUnload AssemblyID:x64 AppDomainID:x64 BindingID:x64 AssemblyFlags:u32=AssemblyFlagsMap FullyQualifiedAssemblyName:str ClrInstanceID:u16
R 156 1 CLRLoader AppDomainLoad AppDomainID:x64 AppDomainFlags:u32=AppDomainFlagsMap AppDomainName:str AppDomainIndex:u32 ClrInstanceID:u16
R 157 1 CLRLoader AppDomainUnload AppDomainID:x64 AppDomainFlags:u32=AppDomainFlagsMap AppDomainName:str AppDomainIndex:u32 ClrInstanceID:u16
R 187 0 CLRRuntimeInformation win:Start ClrInstanceID:u16 Sku:u16=RuntimeSkuMap BclMajorVersion:u16 BclMinorVersion:u16 BclBuildNumber:u16 BclQfeNumber:u16 VMMajorVersion:u16 VMMinorVersion:u16 VMBuildNumber:u16 VMQfeNumber:u16 StartupFlags:u32=StartupFlagsMap StartupMode:u8=StartupModeMap CommandLine:str ComObjectGuid:guid RuntimeDllPath:str
# Microsoft-Windows-DotNETRuntimeRundown
D 141 1 CLRMethodRundown MethodDCStart MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16
D 142 1 CLRMethodRundown MethodDCEnd MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap ClrInstanceID:u16
D 143 1 CLRMethodRundown MethodDCStartVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16
D 144 1 CLRMethodRundown MethodDCEndVerbose MethodID:x64 ModuleID:x64 MethodStartAddress:x64 MethodSize:x32 MethodToken:x32 MethodFlags:u32=MethodFlagsMap MethodNamespace:str MethodName:str MethodSignature:str ClrInstanceID:u16
D 145 1 CLRMethodRundown DCStartComplete ClrInstanceID:u16
D 146 1 CLRMethodRundown DCEndComplete ClrInstanceID:u16
D 147 1 CLRMethodRundown DCStartInit ClrInstanceID:u16
D 148 1 CLRMethodRundown DCEndInit ClrInstanceID:u16
D 149 0 CLRMethodRundown MethodDCStartILToNativeMap MethodID:x64 ReJITID:x64 MethodExtent:u8 CountOfMapEntries:u16 ILOffsets:u32[CountOfMapEntries] NativeOffsets:u32[CountOfMapEntries] ClrInstanceID:u16
D 150 0 CLRMethodRundown MethodDCEndILToNativeMap MethodID:x64 ReJITID:x64 MethodExtent:u8 CountOfMapEntries:u16 ILOffsets:u32[CountOfMapEntries] NativeOffsets:u32[CountOfMapEntries] ClrInstanceID:u16
D 151 1 CLRLoaderRundown DomainModuleDCStart ModuleID:x64 AssemblyID:x64 AppDomainID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16
D 152 1 CLRLoaderRundown DomainModuleDCEnd ModuleID:x64 AssemblyID:x64 AppDomainID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16
D 153 2 CLRLoaderRundown ModuleDCStart ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16 ManagedPdbSignature:guid ManagedPdbAge:u32 ManagedPdbBuildPath:str NativePdbSignature:guid NativePdbAge:u32 NativePdbBuildPath:str
D 154 2 CLRLoaderRundown ModuleDCEnd ModuleID:x64 AssemblyID:x64 ModuleFlags:u32=ModuleFlagsMap Reserved1:u32 ModuleILPath:str ModuleNativePath:str ClrInstanceID:u16 ManagedPdbSignature:guid ManagedPdbAge:u32 ManagedPdbBuildPath:str NativePdbSignature:guid NativePdbAge:u32 NativePdbBuildPath:str
D 155 1 CLRLoaderRundown AssemblyDCStart AssemblyID:x64 AppDomainID:x64 BindingID:x64 AssemblyFlags:u32=AssemblyFlagsMap FullyQualifiedAssemblyName:str ClrInstanceID:u16
D 156 1 CLRLoaderRundown AssemblyDCEnd AssemblyID:x64 AppDomainID:x64 BindingID:x64 AssemblyFlags:u32=AssemblyFlagsMap FullyQualifiedAssemblyName:str ClrInstanceID:u16
D 157 1 CLRLoaderRundown AppDomainDCStart AppDomainID:x64 AppDomainFlags:u32=AppDomainFlagsMap AppDomainName:str AppDomainIndex:u32 ClrInstanceID:u16
D 158 1 CLRLoaderRundown AppDomainDCEnd AppDomainID:x64 AppDomainFlags:u32=AppDomainFlagsMap AppDomainName:str AppDomainIndex:u32 ClrInstanceID:u16
D 187 0 CLRRuntimeInformationRundown win:Start ClrInstanceID:u16 Sku:u16=RuntimeSkuMap BclMajorVersion:u16 BclMinorVersion:u16 BclBuildNumber:u16 BclQfeNumber:u16 VMMajorVersion:u16 VMMinorVersion:u16 VMBuildNumber:u16 VMQfeNumber:u16 StartupFlags:u32=StartupFlagsMap StartupMode:u8=StartupModeMap CommandLine:str ComObjectGuid:guid RuntimeDllPath:str
# Microsoft-Windows-DotNETRuntimePrivate: garbage collection
P 2 1 GarbageCollectionPrivate GCSettings SegmentSize:u64 LargeObjectSegmentSize:u64 ServerGC:bool ClrInstanceID:u16
P 5 1 GarbageCollectionPrivate GCGlobalHeapHistory FinalYoungestDesired:x64 NumHeaps:i32 CondemnedGeneration:u32 Gen0ReductionCount:u32 Reason:u32 GlobalMechanisms:u32 ClrInstanceID:u16
P 7 1 GarbageCollectionPrivate GCMarkStackRoots HeapNum:u32 ClrInstanceID:u16
P 8 1 GarbageCollectionPrivate GCMarkFinalizeQueueRoots HeapNum:u32 ClrInstanceID:u16
P 9 1 GarbageCollectionPrivate GCMarkHandles HeapNum:u32 ClrInstanceID:u16
P 10 1 GarbageCollectionPrivate GCMarkCards HeapNum:u32 ClrInstanceID:u16
# GCPerHeapHistory version 2 has no template in the manifest (the runtime
# logs its gc_history_per_heap struct raw); the layout of .NET 4.5.2's is
# PerfView's (ClrTraceEventParser GCPerHeapHistoryTraceData, version 2
# minor 2): five gen_data of ten pointers, six Int32, Int64, one byte.
P 4 2 GarbageCollectionPrivate GCPerHeapHistory Values:{SizeBefore:ptr,FreeListBefore:ptr,FreeObjBefore:ptr,SizeAfter:ptr,FreeListAfter:ptr,FreeObjAfter:ptr,In:ptr,PinnedSurv:ptr,NonePinnedSurv:ptr,NewAllocation:ptr}[5] CondemnReasons0:u32 CondemnReasons1:u32 MemoryPressure:u32 ExpandMechanisms:x32 CompactMechanisms:x32 HeapIndex:u32 ExtraGen0Commit:u64 ClrInstanceID:u8
# Microsoft-Windows-DotNETRuntimePrivate: binding (opcode names kept whole,
# as PerfView does; 175 is PerfView's LoaderDeliverEventPhaseStart)
P 161 0 Binding BindingNgenPhaseStart AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 162 0 Binding BindingNgenPhaseEnd AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 165 0 Binding LoaderPhaseStart AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 166 0 Binding LoaderPhaseEnd AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 171 0 Binding LoaderAssemblyInitPhaseStart AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 172 0 Binding LoaderAssemblyInitPhaseEnd AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 173 0 Binding LoaderMappingPhaseStart AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 174 0 Binding LoaderMappingPhaseEnd AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 175 0 Binding LoaderDeliverEventPhaseStart AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 176 0 Binding LoaderDeliverEventsPhaseEnd AppDomainID:u32 LoadContextID:u32 FromLoaderCache:u32 DynamicLoad:u32 AssemblyCodebase:str AssemblyName:str ClrInstanceID:u16
P 188 0 CLRNgenBinder NgenBind ClrInstanceID:u16 BindingID:u64 ReasonCode:u32 AssemblyName:str
P 196 0 Binding FusionMessage ClrInstanceID:u16 Prepend:bool Message:str
P 197 0 Binding FusionErrorCode ClrInstanceID:u16 Category:u32 ErrorCode:u32
";

/// `valuemap|bitmap Name value=Text...`: the manifest's map texts (none
/// has a space).
pub const MAPS: &str = r"
valuemap GCReasonMap 0=AllocSmall 1=Induced 2=LowMemory 3=Empty 4=AllocLarge 5=OutOfSpaceSOH 6=OutOfSpaceLOH 7=InducedNotForced 8=Internal 9=InducedLowMemory 10=InducedCompacting 11=LowMemoryHost 12=PMFullGC 13=LowMemoryHostBlocking
valuemap GCTypeMap 0=NonConcurrentGC 1=BackgroundGC 2=ForegroundGC
valuemap GCSuspendEEReasonMap 0=SuspendOther 1=SuspendForGC 2=SuspendForAppDomainShutdown 3=SuspendForCodePitching 4=SuspendForShutdown 5=SuspendForDebugger 6=SuspendForGCPrep 7=SuspendForDebuggerSweep
valuemap GCAllocationKindMap 0=Small 1=Large 2=Pinned
valuemap GCSegmentTypeMap 0=SmallObjectHeap 1=LargeObjectHeap 2=ReadOnlyHeap 3=PinnedObjectHeap
valuemap GCRootKindMap 0=Stack 1=Finalizer 2=Handle 3=Older 4=SizedRef 5=Overflow 6=DependentHandle 7=NewFQ 8=Steal 9=BGC
valuemap GCHandleKindMap 0=WeakShort 1=WeakLong 2=Strong 3=Pinned 4=Variable 5=RefCounted 6=Dependent 7=AsyncPinned 8=SizedRef
valuemap RuntimeSkuMap 0=None 1=DesktopClr 2=CoreClr
bitmap StartupModeMap 0x0=None 0x1=ManagedExe 0x2=HostedCLR 0x4=IJW 0x8=COMActivated 0x10=Other
bitmap MethodFlagsMap 0x0=None 0x1=Dynamic 0x2=Generic 0x4=HasSharedGenericCode 0x8=Jitted 0x10=JitHelper 0x20=ProfilerRejectedPrecompiledCode 0x40=ReadyToRunRejectedPrecompiledCode
bitmap ModuleFlagsMap 0x0=None 0x1=DomainNeutral 0x2=Native 0x4=Dynamic 0x8=Manifest 0x10=IbcOptimized 0x20=ReadyToRunModule 0x40=PartialReadyToRunModule
bitmap AssemblyFlagsMap 0x0=None 0x1=DomainNeutral 0x2=Dynamic 0x4=Native 0x8=Collectible 0x10=ReadyToRun
bitmap AppDomainFlagsMap 0x0=None 0x1=Default 0x2=Executable 0x4=Shared
bitmap TypeFlagsMap 0x0=None 0x1=Delegate 0x2=Finalizable 0x4=ExternallyImplementedCOMObject 0x8=Array
bitmap ExceptionThrownFlagsMap 0x0=None 0x1=HasInnerException 0x2=Nested 0x4=ReThrown 0x8=CorruptedState 0x10=CLSCompliant
bitmap StartupFlagsMap 0x0=None 0x1=CONCURRENT_GC 0x2=LOADER_OPTIMIZATION_SINGLE_DOMAIN 0x4=LOADER_OPTIMIZATION_MULTI_DOMAIN 0x10=LOADER_SAFEMODE 0x100=LOADER_SETPREFERENCE 0x1000=SERVER_GC 0x2000=HOARD_GC_VM 0x4000=SINGLE_VERSION_HOSTING_INTERFACE 0x10000=LEGACY_IMPERSONATION 0x20000=DISABLE_COMMITTHREADSTACK 0x40000=ALWAYSFLOW_IMPERSONATION 0x80000=TRIM_GC_COMMIT 0x100000=ETW 0x200000=SERVER_BUILD 0x400000=ARM
";

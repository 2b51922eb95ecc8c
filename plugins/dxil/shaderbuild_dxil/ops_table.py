"""The DXIL operation table (SM 6.0-6.8), one operation per line.

Facts transcribed from DXC's operation database (utils/hct/hctdb.py, the
DXIL.rst opcode table); the format is ours.  Columns:

    opcode  Name  function-class  overloads  attrs  min-SM  stages  flags  :  return  params

* function-class: the `<class>` of `dx.op.<class>.<overload>`;
* overloads: h=f16 f=f32 d=f64 1=i1 8=i8 w=i16 i=i32 l=i64 u=udt o=object, v=none (no name suffix);
* attrs: rn=readnone, ro=readonly, nd=noduplicate, nr=noreturn, -=none (all get nounwind);
* stages: '*' for every stage, else short names (cs ps vs hs ds gs ms as lib node rg is ah ch miss call);
* flags: w=wave, d=derivative, g=gradient, b=barrier, f=sampler feedback, -=none;
* signature: T is the overload type; ResRet/CBufRet are the overload's dx.types structs; the
  leading i32 opcode operand is implicit.
"""

OP_TABLE = """\
  0 TempRegLoad tempRegLoad hfwi ro 6.0 * - : T i32
  1 TempRegStore tempRegStore hfwi - 6.0 * - : void i32,T
  2 MinPrecXRegLoad minPrecXRegLoad hw ro 6.0 * - : T pf32,i32,i8
  3 MinPrecXRegStore minPrecXRegStore hw - 6.0 * - : void pf32,i32,i8,T
  4 LoadInput loadInput hfwi rn 6.0 * - : T i32,i32,i8,i32
  5 StoreOutput storeOutput hfwi - 6.0 * - : void i32,i32,i8,T
  6 FAbs unary hfd rn 6.0 * - : T T
  7 Saturate unary hfd rn 6.0 * - : T T
  8 IsNaN isSpecialFloat hf rn 6.0 * - : i1 T
  9 IsInf isSpecialFloat hf rn 6.0 * - : i1 T
 10 IsFinite isSpecialFloat hf rn 6.0 * - : i1 T
 11 IsNormal isSpecialFloat hf rn 6.0 * - : i1 T
 12 Cos unary hf rn 6.0 * - : T T
 13 Sin unary hf rn 6.0 * - : T T
 14 Tan unary hf rn 6.0 * - : T T
 15 Acos unary hf rn 6.0 * - : T T
 16 Asin unary hf rn 6.0 * - : T T
 17 Atan unary hf rn 6.0 * - : T T
 18 Hcos unary hf rn 6.0 * - : T T
 19 Hsin unary hf rn 6.0 * - : T T
 20 Htan unary hf rn 6.0 * - : T T
 21 Exp unary hf rn 6.0 * - : T T
 22 Frc unary hf rn 6.0 * - : T T
 23 Log unary hf rn 6.0 * - : T T
 24 Sqrt unary hf rn 6.0 * - : T T
 25 Rsqrt unary hf rn 6.0 * - : T T
 26 Round_ne unary hf rn 6.0 * - : T T
 27 Round_ni unary hf rn 6.0 * - : T T
 28 Round_pi unary hf rn 6.0 * - : T T
 29 Round_z unary hf rn 6.0 * - : T T
 30 Bfrev unary wil rn 6.0 * - : T T
 31 Countbits unaryBits wil rn 6.0 * - : i32 T
 32 FirstbitLo unaryBits wil rn 6.0 * - : i32 T
 33 FirstbitHi unaryBits wil rn 6.0 * - : i32 T
 34 FirstbitSHi unaryBits wil rn 6.0 * - : i32 T
 35 FMax binary hfd rn 6.0 * - : T T,T
 36 FMin binary hfd rn 6.0 * - : T T,T
 37 IMax binary wil rn 6.0 * - : T T,T
 38 IMin binary wil rn 6.0 * - : T T,T
 39 UMax binary wil rn 6.0 * - : T T,T
 40 UMin binary wil rn 6.0 * - : T T,T
 41 IMul binaryWithTwoOuts i rn 6.0 * - : twoi32 T,T
 42 UMul binaryWithTwoOuts i rn 6.0 * - : twoi32 T,T
 43 UDiv binaryWithTwoOuts i rn 6.0 * - : twoi32 T,T
 44 UAddc binaryWithCarryOrBorrow i rn 6.0 * - : i32c T,T
 45 USubb binaryWithCarryOrBorrow i rn 6.0 * - : i32c T,T
 46 FMad tertiary hfd rn 6.0 * - : T T,T,T
 47 Fma tertiary d rn 6.0 * - : T T,T,T
 48 IMad tertiary wil rn 6.0 * - : T T,T,T
 49 UMad tertiary wil rn 6.0 * - : T T,T,T
 50 Msad tertiary i rn 6.0 * - : T T,T,T
 51 Ibfe tertiary i rn 6.0 * - : T T,T,T
 52 Ubfe tertiary i rn 6.0 * - : T T,T,T
 53 Bfi quaternary i rn 6.0 * - : T T,T,T,T
 54 Dot2 dot2 hf rn 6.0 * - : T T,T,T,T
 55 Dot3 dot3 hf rn 6.0 * - : T T,T,T,T,T,T
 56 Dot4 dot4 hf rn 6.0 * - : T T,T,T,T,T,T,T,T
 57 CreateHandle createHandle v ro 6.0 * - : Handle i8,i32,i32,i1
 58 CBufferLoad cbufferLoad hfd8wil ro 6.0 * - : T Handle,i32,i32
 59 CBufferLoadLegacy cbufferLoadLegacy hfdwil ro 6.0 * - : CBufRet Handle,i32
 60 Sample sample hfwi ro 6.0 lib,ps,cs,as,ms,node g : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32
 61 SampleBias sampleBias hfwi ro 6.0 lib,ps,cs,as,ms,node g : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32
 62 SampleLevel sampleLevel hfwi ro 6.0 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32
 63 SampleGrad sampleGrad hfwi ro 6.0 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32,f32,f32,f32,f32,f32
 64 SampleCmp sampleCmp hf ro 6.0 lib,ps,cs,as,ms,node g : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32
 65 SampleCmpLevelZero sampleCmpLevelZero hf ro 6.0 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32
 66 TextureLoad textureLoad hfwi ro 6.0 * - : ResRet Handle,i32,i32,i32,i32,i32,i32,i32
 67 TextureStore textureStore hfwi - 6.0 * - : void Handle,i32,i32,i32,T,T,T,T,i8
 68 BufferLoad bufferLoad hfwi ro 6.0 * - : ResRet Handle,i32,i32
 69 BufferStore bufferStore hfwi - 6.0 * - : void Handle,i32,i32,T,T,T,T,i8
 70 BufferUpdateCounter bufferUpdateCounter v - 6.0 * - : i32 Handle,i8
 71 CheckAccessFullyMapped checkAccessFullyMapped i ro 6.0 * - : i1 T
 72 GetDimensions getDimensions v ro 6.0 * - : Dimensions Handle,i32
 73 TextureGather textureGather hfwi ro 6.0 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32
 74 TextureGatherCmp textureGatherCmp hfwi ro 6.0 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32
 75 Texture2DMSGetSamplePosition texture2DMSGetSamplePosition v ro 6.0 * - : SamplePos Handle,i32
 76 RenderTargetGetSamplePosition renderTargetGetSamplePosition v ro 6.0 ps - : SamplePos i32
 77 RenderTargetGetSampleCount renderTargetGetSampleCount v ro 6.0 ps - : i32
 78 AtomicBinOp atomicBinOp li - 6.0 * - : T Handle,i32,i32,i32,i32,T
 79 AtomicCompareExchange atomicCompareExchange li - 6.0 * - : T Handle,i32,i32,i32,T,T
 80 Barrier barrier v nd 6.0 * b : void i32
 81 CalculateLOD calculateLOD f ro 6.0 lib,ps,cs,as,ms,node g : f32 Handle,Handle,T,T,T,i1
 82 Discard discard v - 6.0 ps - : void i1
 83 DerivCoarseX unary hf rn 6.0 lib,ps,cs,as,ms,node dg : T T
 84 DerivCoarseY unary hf rn 6.0 lib,ps,cs,as,ms,node dg : T T
 85 DerivFineX unary hf rn 6.0 lib,ps,cs,as,ms,node dg : T T
 86 DerivFineY unary hf rn 6.0 lib,ps,cs,as,ms,node dg : T T
 87 EvalSnapped evalSnapped hf rn 6.0 ps - : T i32,i32,i8,i32,i32
 88 EvalSampleIndex evalSampleIndex hf rn 6.0 ps - : T i32,i32,i8,i32
 89 EvalCentroid evalCentroid hf rn 6.0 ps - : T i32,i32,i8
 90 SampleIndex sampleIndex i rn 6.0 ps - : T
 91 Coverage coverage i rn 6.0 ps - : T
 92 InnerCoverage innerCoverage i rn 6.0 ps - : T
 93 ThreadId threadId i rn 6.0 cs,ms,as,node - : T i32
 94 GroupId groupId i rn 6.0 cs,ms,as,node - : T i32
 95 ThreadIdInGroup threadIdInGroup i rn 6.0 cs,ms,as,node - : T i32
 96 FlattenedThreadIdInGroup flattenedThreadIdInGroup i rn 6.0 cs,ms,as,node - : T
 97 EmitStream emitStream v - 6.0 gs - : void i8
 98 CutStream cutStream v - 6.0 gs - : void i8
 99 EmitThenCutStream emitThenCutStream v - 6.0 gs - : void i8
100 GSInstanceID gsInstanceID i rn 6.0 gs - : T
101 MakeDouble makeDouble d rn 6.0 * - : T i32,i32
102 SplitDouble splitDouble d rn 6.0 * - : splitdouble T
103 LoadOutputControlPoint loadOutputControlPoint hfwi rn 6.0 ds,hs - : T i32,i32,i8,i32
104 LoadPatchConstant loadPatchConstant hfwi rn 6.0 ds,hs - : T i32,i32,i8
105 DomainLocation domainLocation f rn 6.0 ds - : T i8
106 StorePatchConstant storePatchConstant hfwi - 6.0 hs - : void i32,i32,i8,T
107 OutputControlPointID outputControlPointID i rn 6.0 hs - : T
108 PrimitiveID primitiveID i rn 6.0 gs,ds,hs - : T
109 CycleCounterLegacy cycleCounterLegacy v - 6.0 * - : twoi32
110 WaveIsFirstLane waveIsFirstLane v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i1
111 WaveGetLaneIndex waveGetLaneIndex v ro 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i32
112 WaveGetLaneCount waveGetLaneCount v rn 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i32
113 WaveAnyTrue waveAnyTrue v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i1 i1
114 WaveAllTrue waveAllTrue v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i1 i1
115 WaveActiveAllEqual waveActiveAllEqual hfd18wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i1 T
116 WaveActiveBallot waveActiveBallot v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : fouri32 i1
117 WaveReadLaneAt waveReadLaneAt hfd18wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T,i32
118 WaveReadLaneFirst waveReadLaneFirst hfd18wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T
119 WaveActiveOp waveActiveOp hfd18wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T,i8,i8
120 WaveActiveBit waveActiveBit 8wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T,i8
121 WavePrefixOp wavePrefixOp hfd8wil - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T,i8,i8
122 QuadReadLaneAt quadReadLaneAt hfd18wil - 6.0 lib,cs,as,ms,ps,node w : T T,i32
123 QuadOp quadOp hfd8wil - 6.0 lib,cs,as,ms,ps,node w : T T,i8
124 BitcastI16toF16 bitcastI16toF16 v rn 6.0 * - : f16 i16
125 BitcastF16toI16 bitcastF16toI16 v rn 6.0 * - : i16 f16
126 BitcastI32toF32 bitcastI32toF32 v rn 6.0 * - : f32 i32
127 BitcastF32toI32 bitcastF32toI32 v rn 6.0 * - : i32 f32
128 BitcastI64toF64 bitcastI64toF64 v rn 6.0 * - : f64 i64
129 BitcastF64toI64 bitcastF64toI64 v rn 6.0 * - : i64 f64
130 LegacyF32ToF16 legacyF32ToF16 v rn 6.0 * - : i32 f32
131 LegacyF16ToF32 legacyF16ToF32 v rn 6.0 * - : f32 i32
132 LegacyDoubleToFloat legacyDoubleToFloat v rn 6.0 * - : f32 f64
133 LegacyDoubleToSInt32 legacyDoubleToSInt32 v rn 6.0 * - : i32 f64
134 LegacyDoubleToUInt32 legacyDoubleToUInt32 v rn 6.0 * - : i32 f64
135 WaveAllBitCount waveAllOp v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i32 i1
136 WavePrefixBitCount wavePrefixOp v - 6.0 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i32 i1
137 AttributeAtVertex attributeAtVertex hfiw rn 6.1 ps - : T i32,i32,i8,i8
138 ViewID viewID i rn 6.1 vs,hs,ds,gs,ps,ms - : T
139 RawBufferLoad rawBufferLoad hfwidl ro 6.2 * - : ResRet Handle,i32,i32,i8,i32
140 RawBufferStore rawBufferStore hfwidl - 6.2 * - : void Handle,i32,i32,T,T,T,T,i8,i32
141 InstanceID instanceID i rn 6.3 lib,is,ah,ch - : T
142 InstanceIndex instanceIndex i rn 6.3 lib,is,ah,ch - : T
143 HitKind hitKind i rn 6.3 lib,is,ah,ch - : T
144 RayFlags rayFlags i rn 6.3 lib,is,ah,ch,miss - : T
145 DispatchRaysIndex dispatchRaysIndex i rn 6.3 lib,rg,is,ah,ch,miss,call - : T i8
146 DispatchRaysDimensions dispatchRaysDimensions i rn 6.3 lib,rg,is,ah,ch,miss,call - : T i8
147 WorldRayOrigin worldRayOrigin f rn 6.3 lib,is,ah,ch,miss - : T i8
148 WorldRayDirection worldRayDirection f rn 6.3 lib,is,ah,ch,miss - : T i8
149 ObjectRayOrigin objectRayOrigin f rn 6.3 lib,is,ah,ch - : T i8
150 ObjectRayDirection objectRayDirection f rn 6.3 lib,is,ah,ch - : T i8
151 ObjectToWorld objectToWorld f rn 6.3 lib,is,ah,ch - : T i32,i8
152 WorldToObject worldToObject f rn 6.3 lib,is,ah,ch - : T i32,i8
153 RayTMin rayTMin f rn 6.3 lib,is,ah,ch,miss - : T
154 RayTCurrent rayTCurrent f ro 6.3 lib,is,ah,ch,miss - : T
155 IgnoreHit ignoreHit v nr 6.3 ah - : void
156 AcceptHitAndEndSearch acceptHitAndEndSearch v nr 6.3 ah - : void
157 TraceRay traceRay u - 6.3 lib,rg,ch,miss - : void Handle,i32,i32,i32,i32,i32,f32,f32,f32,f32,f32,f32,f32,f32,udt
158 ReportHit reportHit u - 6.3 lib,is - : i1 f32,i32,udt
159 CallShader callShader u - 6.3 lib,ch,rg,miss,call - : void i32,udt
160 CreateHandleForLib createHandleForLib o ro 6.3 * - : Handle obj
161 PrimitiveIndex primitiveIndex i rn 6.3 lib,is,ah,ch - : T
162 Dot2AddHalf dot2AddHalf f rn 6.4 * - : T T,f16,f16,f16,f16
163 Dot4AddI8Packed dot4AddPacked i rn 6.4 * - : T T,i32,i32
164 Dot4AddU8Packed dot4AddPacked i rn 6.4 * - : T T,i32,i32
165 WaveMatch waveMatch hfd8wil - 6.5 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : fouri32 T
166 WaveMultiPrefixOp waveMultiPrefixOp hfd8wil - 6.5 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : T T,i32,i32,i32,i32,i8,i8
167 WaveMultiPrefixBitCount waveMultiPrefixBitCount v - 6.5 lib,cs,as,ms,ps,vs,hs,ds,gs,rg,is,ah,ch,miss,call,node w : i32 i1,i32,i32,i32,i32
168 SetMeshOutputCounts setMeshOutputCounts v - 6.5 ms - : void i32,i32
169 EmitIndices emitIndices v - 6.5 ms - : void i32,i32,i32,i32
170 GetMeshPayload getMeshPayload u ro 6.5 ms - : T
171 StoreVertexOutput storeVertexOutput hfwi - 6.5 ms - : void i32,i32,i8,T,i32
172 StorePrimitiveOutput storePrimitiveOutput hfwi - 6.5 ms - : void i32,i32,i8,T,i32
173 DispatchMesh dispatchMesh u - 6.5 as - : void i32,i32,i32,T
174 WriteSamplerFeedback writeSamplerFeedback v - 6.5 lib,ps gf : void Handle,Handle,Handle,f32,f32,f32,f32,f32
175 WriteSamplerFeedbackBias writeSamplerFeedbackBias v - 6.5 lib,ps gf : void Handle,Handle,Handle,f32,f32,f32,f32,f32,f32
176 WriteSamplerFeedbackLevel writeSamplerFeedbackLevel v - 6.5 * f : void Handle,Handle,Handle,f32,f32,f32,f32,f32
177 WriteSamplerFeedbackGrad writeSamplerFeedbackGrad v - 6.5 * f : void Handle,Handle,Handle,f32,f32,f32,f32,f32,f32,f32,f32,f32,f32,f32
178 AllocateRayQuery allocateRayQuery v - 6.5 * - : i32 i32
179 RayQuery_TraceRayInline rayQuery_TraceRayInline v - 6.5 * - : void i32,Handle,i32,i32,f32,f32,f32,f32,f32,f32,f32,f32
180 RayQuery_Proceed rayQuery_Proceed 1 - 6.5 * - : T i32
181 RayQuery_Abort rayQuery_Abort v - 6.5 * - : void i32
182 RayQuery_CommitNonOpaqueTriangleHit rayQuery_CommitNonOpaqueTriangleHit v - 6.5 * - : void i32
183 RayQuery_CommitProceduralPrimitiveHit rayQuery_CommitProceduralPrimitiveHit v - 6.5 * - : void i32,f32
184 RayQuery_CommittedStatus rayQuery_StateScalar i ro 6.5 * - : T i32
185 RayQuery_CandidateType rayQuery_StateScalar i ro 6.5 * - : T i32
186 RayQuery_CandidateObjectToWorld3x4 rayQuery_StateMatrix f ro 6.5 * - : T i32,i32,i8
187 RayQuery_CandidateWorldToObject3x4 rayQuery_StateMatrix f ro 6.5 * - : T i32,i32,i8
188 RayQuery_CommittedObjectToWorld3x4 rayQuery_StateMatrix f ro 6.5 * - : T i32,i32,i8
189 RayQuery_CommittedWorldToObject3x4 rayQuery_StateMatrix f ro 6.5 * - : T i32,i32,i8
190 RayQuery_CandidateProceduralPrimitiveNonOpaque rayQuery_StateScalar 1 ro 6.5 * - : T i32
191 RayQuery_CandidateTriangleFrontFace rayQuery_StateScalar 1 ro 6.5 * - : T i32
192 RayQuery_CommittedTriangleFrontFace rayQuery_StateScalar 1 ro 6.5 * - : T i32
193 RayQuery_CandidateTriangleBarycentrics rayQuery_StateVector f ro 6.5 * - : T i32,i8
194 RayQuery_CommittedTriangleBarycentrics rayQuery_StateVector f ro 6.5 * - : T i32,i8
195 RayQuery_RayFlags rayQuery_StateScalar i ro 6.5 * - : T i32
196 RayQuery_WorldRayOrigin rayQuery_StateVector f ro 6.5 * - : T i32,i8
197 RayQuery_WorldRayDirection rayQuery_StateVector f ro 6.5 * - : T i32,i8
198 RayQuery_RayTMin rayQuery_StateScalar f ro 6.5 * - : T i32
199 RayQuery_CandidateTriangleRayT rayQuery_StateScalar f ro 6.5 * - : T i32
200 RayQuery_CommittedRayT rayQuery_StateScalar f ro 6.5 * - : T i32
201 RayQuery_CandidateInstanceIndex rayQuery_StateScalar i ro 6.5 * - : T i32
202 RayQuery_CandidateInstanceID rayQuery_StateScalar i ro 6.5 * - : T i32
203 RayQuery_CandidateGeometryIndex rayQuery_StateScalar i ro 6.5 * - : T i32
204 RayQuery_CandidatePrimitiveIndex rayQuery_StateScalar i ro 6.5 * - : T i32
205 RayQuery_CandidateObjectRayOrigin rayQuery_StateVector f ro 6.5 * - : T i32,i8
206 RayQuery_CandidateObjectRayDirection rayQuery_StateVector f ro 6.5 * - : T i32,i8
207 RayQuery_CommittedInstanceIndex rayQuery_StateScalar i ro 6.5 * - : T i32
208 RayQuery_CommittedInstanceID rayQuery_StateScalar i ro 6.5 * - : T i32
209 RayQuery_CommittedGeometryIndex rayQuery_StateScalar i ro 6.5 * - : T i32
210 RayQuery_CommittedPrimitiveIndex rayQuery_StateScalar i ro 6.5 * - : T i32
211 RayQuery_CommittedObjectRayOrigin rayQuery_StateVector f ro 6.5 * - : T i32,i8
212 RayQuery_CommittedObjectRayDirection rayQuery_StateVector f ro 6.5 * - : T i32,i8
213 GeometryIndex geometryIndex i rn 6.5 lib,is,ah,ch - : T
214 RayQuery_CandidateInstanceContributionToHitGroupIndex rayQuery_StateScalar i ro 6.5 * - : T i32
215 RayQuery_CommittedInstanceContributionToHitGroupIndex rayQuery_StateScalar i ro 6.5 * - : T i32
216 AnnotateHandle annotateHandle v rn 6.6 * - : Handle Handle,ResourceProperties
217 CreateHandleFromBinding createHandleFromBinding v rn 6.6 * - : Handle ResBind,i32,i1
218 CreateHandleFromHeap createHandleFromHeap v rn 6.6 * - : Handle i32,i1,i1
219 Unpack4x8 unpack4x8 iw rn 6.6 * - : four i8,i32
220 Pack4x8 pack4x8 iw rn 6.6 * - : i32 i8,T,T,T,T
221 IsHelperLane isHelperLane 1 ro 6.6 * - : T
222 QuadVote quadVote 1 - 6.7 lib,cs,as,ms,ps,node w : i1 i1,i8
223 TextureGatherRaw textureGatherRaw wil ro 6.7 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32
224 SampleCmpLevel sampleCmpLevel hf ro 6.7 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32
225 TextureStoreSample textureStoreSample hfwi - 6.7 * - : void Handle,i32,i32,i32,T,T,T,T,i8,i32
238 AllocateNodeOutputRecords allocateNodeOutputRecords v - 6.8 node - : NodeRecordHandle NodeHandle,i32,i1
239 GetNodeRecordPtr getNodeRecordPtr u rn 6.8 node - : T NodeRecordHandle,i32
240 IncrementOutputCount incrementOutputCount v - 6.8 node - : void NodeHandle,i32,i1
241 OutputComplete outputComplete v - 6.8 node - : void NodeRecordHandle
242 GetInputRecordCount getInputRecordCount v ro 6.8 node - : i32 NodeRecordHandle
243 FinishedCrossGroupSharing finishedCrossGroupSharing v - 6.8 node - : i1 NodeRecordHandle
244 BarrierByMemoryType barrierByMemoryType v nd 6.8 * b : void i32,i32
245 BarrierByMemoryHandle barrierByMemoryHandle v nd 6.8 * b : void Handle,i32
246 BarrierByNodeRecordHandle barrierByNodeRecordHandle v nd 6.8 node b : void NodeRecordHandle,i32
247 CreateNodeOutputHandle createNodeOutputHandle v rn 6.8 node - : NodeHandle i32
248 IndexNodeHandle indexNodeHandle v rn 6.8 node - : NodeHandle NodeHandle,i32
249 AnnotateNodeHandle annotateNodeHandle v rn 6.8 node - : NodeHandle NodeHandle,NodeInfo
250 CreateNodeInputRecordHandle createNodeInputRecordHandle v rn 6.8 node - : NodeRecordHandle i32
251 AnnotateNodeRecordHandle annotateNodeRecordHandle v rn 6.8 node - : NodeRecordHandle NodeRecordHandle,NodeRecordInfo
252 NodeOutputIsValid nodeOutputIsValid v ro 6.8 node - : i1 NodeHandle
253 GetRemainingRecursionLevels getRemainingRecursionLevels v ro 6.8 node - : i32
254 SampleCmpGrad sampleCmpGrad hf ro 6.8 * - : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32,f32,f32,f32,f32,f32,f32
255 SampleCmpBias sampleCmpBias hf ro 6.8 lib,ps,cs,as,ms,node g : ResRet Handle,Handle,f32,f32,f32,f32,i32,i32,i32,f32,f32,f32
256 StartVertexLocation startVertexLocation i rn 6.8 vs - : T
257 StartInstanceLocation startInstanceLocation i rn 6.8 vs - : T
"""

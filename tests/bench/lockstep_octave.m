function lockstep_octave(url, steps, transport)
%LOCKSTEP_OCTAVE  The Octave lane of make bench-lockstep: rodd_step with by = 0.01 s on the
%   reaching arm, STEPS times, through the MATLAB client and its TRANSPORT ('' for the
%   default); prints one JSON line.
  c = rodd_client(url, '', 'transport', transport);
  s = rodd_create(c, 'example', 'octopus-reaching', 'recording', false);
  rodd_advance(c, s.id, 0.05);
  ms = zeros(steps, 1);
  for k = 1:steps
    t0 = tic();
    rodd_step(c, s.id, 0.01, struct('TM', 700 + 100 * sin(k / 10)));
    ms(k) = 1000 * toc(t0);
  end
  rodd_delete(c, s.id);
  ms = sort(ms);
  pick = @(p) ms(min(steps, floor(p * steps) + 1));
  fprintf('{"way":"octave rodd_step (%s)","steps":%d,"round_trip_p50_ms":%.2f,"round_trip_p90_ms":%.2f}\n', ...
         c.transport, steps, pick(0.5), pick(0.9));
end

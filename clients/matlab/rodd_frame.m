function f = rodd_frame(c, id)
%RODD_FRAME  The latest frame: f.t (s), f.s (N x 1, m), f.position (N x 3, m), f.rotation
%   (N x 3 x 3: f.rotation(i, :, :) is point i's R, its columns the directors d1 d2 d3),
%   f.rho, f.radius (N x 1), f.kappa (N x 3, 1/m), f.nu (N x 3), f.energy (J),
%   f.volume_change. Points run base to tip.
%   A model of several rods has instead f.rods, one struct per rod in the spec's order
%   (f.rods(k).name and its s, position, rotation, ... as above; a cell array when the rods
%   differ in their fields); f.energy, f.bodies, f.constraints and f.contacts stay the
%   model's.
  f = rotations(rodd_request(c, 'GET', ['/v1/sessions/' id '/frame']));
  if isfield(f, 'rods')
    if iscell(f.rods)
      for k = 1:numel(f.rods)
        f.rods{k} = rotations(f.rods{k});
      end
    else
      rods = f.rods;
      for k = 1:numel(rods)
        fixed(k) = rotations(rods(k));  %#ok<AGROW> the same fields for each
      end
      f.rods = fixed;
    end
  end
end

function f = rotations(f)
  if isfield(f, 'rotation')
    n = size(f.rotation, 1);
    f.rotation = permute(reshape(f.rotation', 3, 3, n), [3 2 1]);  % rows of 9 are row-major R
  end
end
